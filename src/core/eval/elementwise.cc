#include "core/eval/elementwise.h"

#include <algorithm>
#include <cmath>

#include "core/ir/type_rules.h"

namespace plaidml::eval {
namespace {

using ir::OpCategory;
using ir::OpKind;

// Signed integer arithmetic with two's complement wrapping (no undefined behaviour): the
// result is narrowed to the real width afterwards, and wrapping commutes with that.
int64_t wrap(uint64_t bits) { return static_cast<int64_t>(bits); }
uint64_t bits(int64_t v) { return static_cast<uint64_t>(v); }

int64_t signed_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap(0 - bits(a));  // INT64_MIN / -1 wraps instead of trapping
  return a / b;
}
int64_t signed_mod(int64_t a, int64_t b) { return (b == 0 || b == -1) ? 0 : a % b; }
uint64_t unsigned_div(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
uint64_t unsigned_mod(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }

template <typename F, typename S, typename U>
Value by_domain(DType c, Value a, Value b, F f, S s, U u) {
  switch (domain_of(c)) {
    case Domain::kFloat:
      return from_double(f(a.f, b.f));
    case Domain::kSigned:
      return from_int(s(a.i, b.i));
    case Domain::kUnsigned:
      return from_uint(u(a.u, b.u));
  }
  return a;
}

template <typename Cmp>
Value compare(DType c, Value a, Value b, Cmp cmp) {
  bool r = false;
  switch (domain_of(c)) {
    case Domain::kFloat:
      r = cmp(a.f, b.f);
      break;
    case Domain::kSigned:
      r = cmp(a.i, b.i);
      break;
    case Domain::kUnsigned:
      r = cmp(a.u, b.u);
      break;
  }
  return from_uint(r ? 1 : 0);
}

Value shift(DType c, Value a, Value b, bool left) {
  int width = dtype_bits(c);
  if (domain_of(c) == Domain::kSigned) {
    if (b.i < 0 || b.i >= width) return from_int(0);
    return from_int(left ? wrap(bits(a.i) << b.i) : a.i >> b.i);
  }
  if (b.u >= static_cast<uint64_t>(width)) return from_uint(0);
  return from_uint(left ? a.u << b.u : a.u >> b.u);
}

Value bit_not(DType c, Value a) {
  if (c == DType::Bool) return from_uint(a.u == 0 ? 1 : 0);
  return from_uint(~a.u);
}

template <typename Fn>
Value math(DType c, const Value* v, Fn fn) {
  return from_double(fn(to_double(v[0], c)));
}

double sign_of(double x) {
  if (std::isnan(x)) return x;
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// IEEE roundToIntegralTiesToEven, without depending on the process's rounding mode.
double round_half_even(double x) {
  double r = std::round(x);  // halves away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5) r = 2.0 * std::round(x / 2.0);
  return r;
}

bool is_negative(DType c, Value a) {
  Domain d = domain_of(c);
  return d == Domain::kFloat ? a.f < 0 : (d == Domain::kSigned && a.i < 0);
}

Value abs_of(DType c, Value a) {
  if (domain_of(c) == Domain::kFloat) return from_double(std::fabs(a.f));
  return is_negative(c, a) ? from_int(wrap(0 - bits(a.i))) : a;
}

Value relu_of(DType c, Value a) {
  if (!is_negative(c, a)) return a;  // NaN is not negative: it passes through
  return domain_of(c) == Domain::kFloat ? from_double(0.0) : from_int(0);
}

Value sign_of(DType c, Value a) {
  switch (domain_of(c)) {
    case Domain::kFloat:
      return from_double(sign_of(a.f));
    case Domain::kSigned:
      return from_int(a.i < 0 ? -1 : (a.i > 0 ? 1 : 0));
    case Domain::kUnsigned:
      return from_uint(a.u != 0 ? 1 : 0);
  }
  return a;
}

Value recip_of(DType c, Value a) {
  switch (domain_of(c)) {
    case Domain::kFloat:
      return from_double(1.0 / a.f);
    case Domain::kSigned:
      return from_int(signed_div(1, a.i));
    case Domain::kUnsigned:
      return from_uint(unsigned_div(1, a.u));
  }
  return a;
}

// The bits of `a` (an element of dtype c) read as the bitcast's target (type_rules.h).
Value bitcast_of(DType c, Value a) {
  uint8_t bytes[8] = {};
  store(bytes, c, 0, a);
  return load(bytes, ir::detail::bitcast_target(c).value_or(c), 0);
}

Value neg_of(DType c, Value a) {
  if (domain_of(c) == Domain::kFloat) return from_double(-a.f);
  return from_uint(0 - a.u);
}

// Applies `op` to operands already converted (see operand_dtype()); the result is a value of
// result_value_dtype(op, c, r).
Value apply(OpKind op, DType c, const Value* v) {
  Value a = v[0], b = v[1];
  auto plus = [](auto x, auto y) { return x + y; };
  switch (op) {
    case OpKind::Add:
      return by_domain(
          c, a, b, plus, [](int64_t x, int64_t y) { return wrap(bits(x) + bits(y)); }, plus);
    case OpKind::Sub:
      return by_domain(
          c, a, b, [](double x, double y) { return x - y; },
          [](int64_t x, int64_t y) { return wrap(bits(x) - bits(y)); },
          [](uint64_t x, uint64_t y) { return x - y; });
    case OpKind::Mul:
      return by_domain(
          c, a, b, [](double x, double y) { return x * y; },
          [](int64_t x, int64_t y) { return wrap(bits(x) * bits(y)); },
          [](uint64_t x, uint64_t y) { return x * y; });
    case OpKind::Div:
      return by_domain(
          c, a, b, [](double x, double y) { return x / y; }, signed_div, unsigned_div);
    case OpKind::Mod:
      return by_domain(
          c, a, b, [](double x, double y) { return std::fmod(x, y); }, signed_mod, unsigned_mod);
    case OpKind::Max:
      return by_domain(
          c, a, b, [](double x, double y) { return std::fmax(x, y); },
          [](int64_t x, int64_t y) { return std::max(x, y); },
          [](uint64_t x, uint64_t y) { return std::max(x, y); });
    case OpKind::Min:
      return by_domain(
          c, a, b, [](double x, double y) { return std::fmin(x, y); },
          [](int64_t x, int64_t y) { return std::min(x, y); },
          [](uint64_t x, uint64_t y) { return std::min(x, y); });
    case OpKind::Neg:
      return neg_of(c, a);
    case OpKind::Abs:
      return abs_of(c, a);
    case OpKind::Sign:
      return sign_of(c, a);
    case OpKind::Recip:
      return recip_of(c, a);
    case OpKind::Relu:
      return relu_of(c, a);
    case OpKind::Bitcast:
      return bitcast_of(c, a);
    case OpKind::Eq:
      return compare(c, a, b, [](auto x, auto y) { return x == y; });
    case OpKind::Ne:
      return compare(c, a, b, [](auto x, auto y) { return x != y; });
    case OpKind::Lt:
      return compare(c, a, b, [](auto x, auto y) { return x < y; });
    case OpKind::Gt:
      return compare(c, a, b, [](auto x, auto y) { return x > y; });
    case OpKind::Le:
      return compare(c, a, b, [](auto x, auto y) { return x <= y; });
    case OpKind::Ge:
      return compare(c, a, b, [](auto x, auto y) { return x >= y; });
    case OpKind::BitAnd:
      return from_uint(a.u & b.u);
    case OpKind::BitOr:
      return from_uint(a.u | b.u);
    case OpKind::BitXor:
      return from_uint(a.u ^ b.u);
    case OpKind::BitNot:
      return bit_not(c, a);
    case OpKind::Shl:
      return shift(c, a, b, true);
    case OpKind::Shr:
      return shift(c, a, b, false);
    case OpKind::Exp:
      return math(c, v, [](double x) { return std::exp(x); });
    case OpKind::Log:
      return math(c, v, [](double x) { return std::log(x); });
    case OpKind::Sqrt:
      return math(c, v, [](double x) { return std::sqrt(x); });
    case OpKind::Pow:
      return from_double(std::pow(to_double(a, c), to_double(b, c)));
    case OpKind::Tanh:
      return math(c, v, [](double x) { return std::tanh(x); });
    case OpKind::Sin:
      return math(c, v, [](double x) { return std::sin(x); });
    case OpKind::Cos:
      return math(c, v, [](double x) { return std::cos(x); });
    case OpKind::Tan:
      return math(c, v, [](double x) { return std::tan(x); });
    case OpKind::Sinh:
      return math(c, v, [](double x) { return std::sinh(x); });
    case OpKind::Cosh:
      return math(c, v, [](double x) { return std::cosh(x); });
    case OpKind::Asin:
      return math(c, v, [](double x) { return std::asin(x); });
    case OpKind::Acos:
      return math(c, v, [](double x) { return std::acos(x); });
    case OpKind::Atan:
      return math(c, v, [](double x) { return std::atan(x); });
    case OpKind::Asinh:
      return math(c, v, [](double x) { return std::asinh(x); });
    case OpKind::Acosh:
      return math(c, v, [](double x) { return std::acosh(x); });
    case OpKind::Atanh:
      return math(c, v, [](double x) { return std::atanh(x); });
    case OpKind::Erf:
      return math(c, v, [](double x) { return std::erf(x); });
    case OpKind::Floor:
      return math(c, v, [](double x) { return std::floor(x); });
    case OpKind::Ceil:
      return math(c, v, [](double x) { return std::ceil(x); });
    case OpKind::Round:
      return math(c, v, [](double x) { return std::round(x); });
    case OpKind::RoundEven:
      return math(c, v, round_half_even);
    case OpKind::IsNan:
      return from_uint(domain_of(c) == Domain::kFloat && std::isnan(a.f) ? 1 : 0);
    case OpKind::IsInf:
      return from_uint(domain_of(c) == Domain::kFloat && std::isinf(a.f) ? 1 : 0);
    case OpKind::Sigmoid:
      return math(c, v, sigmoid);
    case OpKind::Select:
      return v[0].u != 0 ? v[1] : v[2];
    case OpKind::AsFloat:
    case OpKind::AsBFloat:
    case OpKind::AsInt:
    case OpKind::AsUInt:
    case OpKind::AsBool:
      return a;  // converted on load (operand_dtype)
    case OpKind::Reshape:
    case OpKind::Index:
    case OpKind::ShapeOf:
    case OpKind::Gather:
    case OpKind::Scatter:
    case OpKind::PrngStep:
    case OpKind::PrngState:
    case OpKind::PrngValue:
      return a;  // structural: never reaches here (structural.cc)
  }
  return a;
}

// The dtype operand `k` is converted to before apply().
DType operand_dtype(const ElementwiseSpec& spec, size_t k) {
  OpCategory cat = ir::op_category(spec.op);
  if (cat == OpCategory::kCast) return spec.result_dtype;
  if (cat == OpCategory::kSelect && k == 0) return DType::Bool;
  return spec.compute_dtype;
}

// The dtype of apply()'s result.
DType value_dtype(const ElementwiseSpec& spec) {
  switch (ir::op_category(spec.op)) {
    case OpCategory::kCompare:
    case OpCategory::kPredicate:
      return DType::Bool;
    case OpCategory::kMath:
      return DType::F64;
    case OpCategory::kCast:
    case OpCategory::kBitcast:
      return spec.result_dtype;
    case OpCategory::kArith:
    case OpCategory::kBitwise:
    case OpCategory::kNumeric:
    case OpCategory::kSelect:
    case OpCategory::kStructural:
      return spec.compute_dtype;
  }
  return spec.compute_dtype;
}

Status check_spec(const ElementwiseSpec& spec, size_t operand_count) {
  std::string_view name = ir::op_name(spec.op);
  if (static_cast<int>(operand_count) != ir::op_arity(spec.op)) {
    return make_error(StatusCode::kInternal, "interpreter: '{}' got {} operands, expects {}", name,
                      operand_count, ir::op_arity(spec.op));
  }
  if (ir::op_category(spec.op) == OpCategory::kStructural) {
    return make_error(StatusCode::kInternal, "interpreter: '{}' is not elementwise", name);
  }
  if (ir::op_category(spec.op) == OpCategory::kBitwise && dtype_is_float(spec.compute_dtype)) {
    return make_error(StatusCode::kInternal, "interpreter: '{}' bound to compute in {}", name,
                      dtype_name(spec.compute_dtype));
  }
  return Status::ok();
}

}  // namespace

Expected<Tensor> eval_elementwise(const ElementwiseSpec& spec,
                                  const std::vector<const Tensor*>& operands) {
  PLAIDML_TRY(check_spec(spec, operands.size()));
  std::vector<Tensor> args;
  args.reserve(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    args.push_back(broadcast_to(*operands[k], spec.dims, operand_dtype(spec, k)));
  }
  DType from = value_dtype(spec);
  Tensor out(spec.result_dtype, spec.dims);
  Value v[3] = {from_uint(0), from_uint(0), from_uint(0)};
  for (int64_t i = 0; i < out.elements(); ++i) {
    for (size_t k = 0; k < args.size(); ++k) v[k] = args[k].data[i];
    out.data[i] = convert(apply(spec.op, spec.compute_dtype, v), from, spec.result_dtype);
  }
  return out;
}

}  // namespace plaidml::eval
