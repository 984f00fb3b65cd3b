// Folding of elementwise ops whose inputs are all known at import: small constants, and sizes
// from Shape (SymInts, kept symbolic where the arithmetic allows), so that the shape
// computations exporters emit (Mul(Gather(Shape(x), 0), 3), Cast, Where(Equal(...))) become
// sizes and constants instead of program values.
//
// Exactness: integers compute in 64 bits and wrap to the dtype as ONNX's (numpy's) integers do;
// floats fold only in f32/f64, where one double operation rounded once to the dtype is the
// correctly rounded result (+ - * / sqrt); anything ONNX leaves undefined (integer division by
// zero, out-of-range float->int casts) or that a double rounding could change is left to the
// program.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ops_elementwise_util.h"

namespace plaidml::onnx_import::elementwise {
namespace {

constexpr int64_t kFoldLimit = int64_t{1} << 16;

// An input known at import: integers and bools as SymInts, floats as doubles.
struct Known {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  std::vector<int64_t> dims;
  std::vector<SymInt> ints;
  std::vector<double> floats;

  bool floating() const { return dtype_is_float(dtype); }
  int64_t count() const { return floating() ? static_cast<int64_t>(floats.size())
                                            : static_cast<int64_t>(ints.size()); }
};

SymInt known(int64_t v) { return SymInt{v, std::nullopt}; }
SymInt symbolic(const plaidml::IndexExpr& e, bool nonneg = false) {
  return SymInt{std::nullopt, e, nonneg};
}

std::optional<Known> known_input(NodeContext& cx, size_t i) {
  Value& v = cx.input(i);
  Known k;
  k.dtype = v.dtype;
  if (v.host) {
    const HostTensor& h = *v.host;
    if (h.elements() < 0 || h.elements() > kFoldLimit) return std::nullopt;
    k.dims = h.dims;
    if (dtype_is_float(h.dtype)) {
      k.floats = h.to_doubles();
    } else {
      for (int64_t x : h.to_ints()) k.ints.push_back(known(x));
    }
    return k;
  }
  if (v.sizes && !dtype_is_float(v.dtype)) {
    k.ints = *v.sizes;
    if (!v.is_sizes_scalar) k.dims = {static_cast<int64_t>(k.ints.size())};
    return k;
  }
  return std::nullopt;
}

// numpy broadcasting of two shapes, for a fold; nullopt when they do not broadcast or the result
// is too large to fold.
std::optional<std::vector<int64_t>> fold_broadcast(const std::vector<int64_t>& a,
                                                   const std::vector<int64_t>& b) {
  size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) {
    int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
    int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[k] = da == 1 ? db : da;
  }
  // Two small constants can broadcast to a huge one ([65536, 1] and [1, 65536]): folded only
  // within the limit, else computed by the op at run time.
  if (!at_most_elements(out, kFoldLimit)) return std::nullopt;
  return out;
}

// For each flat position of out, the flat position in `in` (broadcast to out) it reads.
std::vector<int64_t> source_map(const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  int64_t n = element_count(out);
  std::vector<int64_t> map(static_cast<size_t>(n), 0);
  size_t r = out.size(), off = r - in.size();
  std::vector<int64_t> coord(r, 0);
  for (int64_t f = 0; f < n; ++f) {
    int64_t src = 0;
    for (size_t k = off; k < r; ++k) src = src * in[k - off] + (in[k - off] == 1 ? 0 : coord[k]);
    map[static_cast<size_t>(f)] = src;
    for (size_t k = r; k-- > 0;) {  // next coordinate, row-major
      if (++coord[k] < out[k]) break;
      coord[k] = 0;
    }
  }
  return map;
}

// v wrapped to dtype's range, as a conversion to that integer type would (bools: v != 0).
int64_t wrap(plaidml_dtype d, int64_t v) {
  switch (d) {
    case PLAIDML_DTYPE_BOOL: return v != 0 ? 1 : 0;
    case PLAIDML_DTYPE_INT8: return static_cast<int8_t>(v);
    case PLAIDML_DTYPE_INT16: return static_cast<int16_t>(v);
    case PLAIDML_DTYPE_INT32: return static_cast<int32_t>(v);
    case PLAIDML_DTYPE_UINT8: return static_cast<uint8_t>(v);
    case PLAIDML_DTYPE_UINT16: return static_cast<uint16_t>(v);
    case PLAIDML_DTYPE_UINT32: return static_cast<uint32_t>(v);
    default: return v;  // i64; u64 keeps its bits in an int64
  }
}

bool is_u64(plaidml_dtype d) { return d == PLAIDML_DTYPE_UINT64; }
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

bool less(plaidml_dtype d, int64_t a, int64_t b) { return is_u64(d) ? u(a) < u(b) : a < b; }

// A known integer binary op in dtype d; nullopt where ONNX leaves it undefined.
std::optional<int64_t> int_binary(FoldOp op, plaidml_dtype d, int64_t a, int64_t b) {
  switch (op) {
    case FoldOp::kAdd: return wrap(d, s(u(a) + u(b)));
    case FoldOp::kSub: return wrap(d, s(u(a) - u(b)));
    case FoldOp::kMul: return wrap(d, s(u(a) * u(b)));
    case FoldOp::kDiv:
      if (b == 0) return std::nullopt;
      if (is_u64(d)) return s(u(a) / u(b));
      if (b == -1) return wrap(d, s(0 - u(a)));  // INT_MIN / -1 wraps
      return a / b;                                // C division truncates, as ONNX's Div
    case FoldOp::kMod:
    case FoldOp::kFmod: {
      if (b == 0) return std::nullopt;
      if (is_u64(d)) return s(u(a) % u(b));
      int64_t r = b == -1 ? 0 : a % b;
      if (op == FoldOp::kMod && r != 0 && ((r < 0) != (b < 0))) r += b;  // Python's sign
      return r;
    }
    case FoldOp::kMax: return less(d, a, b) ? b : a;
    case FoldOp::kMin: return less(d, a, b) ? a : b;
    case FoldOp::kEqual: return a == b;
    case FoldOp::kLess: return less(d, a, b);
    case FoldOp::kLessEqual: return !less(d, b, a);
    case FoldOp::kGreater: return less(d, b, a);
    case FoldOp::kGreaterEqual: return !less(d, a, b);
    case FoldOp::kAnd: return (a != 0) && (b != 0);
    case FoldOp::kOr: return (a != 0) || (b != 0);
    case FoldOp::kXor: return (a != 0) != (b != 0);
    default: return std::nullopt;
  }
}

// Integer division truncating toward zero of a size expression by a known divisor q > 0:
// floordiv on the non-negative and the negative part, exact for either sign of a.
plaidml::IndexExpr trunc_div(NodeContext& cx, const plaidml::IndexExpr& a, int64_t q) {
  plaidml::IndexExpr zero = cx.literal(0), qe = cx.literal(q);
  return plaidml::floordiv(plaidml::max(a, zero), qe) - plaidml::floordiv(plaidml::max(-a, zero), qe);
}

plaidml::IndexExpr expr(NodeContext& cx, const SymInt& v) {
  return v.known() ? cx.literal(*v.value) : *v.expr;
}

// A comparison of a symbolic value known to be >= 0 with a known negative one (either side);
// nullopt when that does not decide it.
std::optional<SymInt> sign_compare(FoldOp op, const SymInt& a, const SymInt& b) {
  bool a_above = a.is_nonneg() && b.known() && *b.value < 0;  // a > b for sure
  bool b_above = b.is_nonneg() && a.known() && *a.value < 0;  // b > a for sure
  if (!a_above && !b_above) return std::nullopt;
  switch (op) {
    case FoldOp::kEqual: return known(0);
    case FoldOp::kGreater:
    case FoldOp::kGreaterEqual: return known(a_above ? 1 : 0);
    case FoldOp::kLess:
    case FoldOp::kLessEqual: return known(a_above ? 0 : 1);
    default: return std::nullopt;
  }
}

// A binary op on sizes where one is symbolic (sizes fit i32/i64: no wrapping is modelled).
std::optional<SymInt> sym_binary(NodeContext& cx, FoldOp op, plaidml_dtype d, const SymInt& a,
                                 const SymInt& b) {
  if (d != PLAIDML_DTYPE_INT64 && d != PLAIDML_DTYPE_INT32) return std::nullopt;
  auto is = [](const SymInt& v, int64_t x) { return v.known() && *v.value == x; };
  bool both = a.is_nonneg() && b.is_nonneg();
  switch (op) {
    case FoldOp::kAdd:
      if (is(a, 0)) return b;
      if (is(b, 0)) return a;
      return symbolic(expr(cx, a) + expr(cx, b), both);
    case FoldOp::kSub:
      if (is(b, 0)) return a;
      return symbolic(expr(cx, a) - expr(cx, b));
    case FoldOp::kMul:
      if (is(a, 1)) return b;
      if (is(b, 1)) return a;
      if (is(a, 0) || is(b, 0)) return known(0);
      return symbolic(expr(cx, a) * expr(cx, b), both);
    case FoldOp::kDiv:
      if (!b.known() || *b.value <= 0) return std::nullopt;
      if (*b.value == 1) return a;
      return symbolic(trunc_div(cx, *a.expr, *b.value), a.is_nonneg());
    case FoldOp::kMax:
      return symbolic(plaidml::max(expr(cx, a), expr(cx, b)), a.is_nonneg() || b.is_nonneg());
    case FoldOp::kMin: return symbolic(plaidml::min(expr(cx, a), expr(cx, b)), both);
    default: return sign_compare(op, a, b);
  }
}

bool is_compare(FoldOp op) {
  return op == FoldOp::kEqual || op == FoldOp::kLess || op == FoldOp::kLessEqual ||
         op == FoldOp::kGreater || op == FoldOp::kGreaterEqual;
}

// numpy's result of a binary float op (computed in double; the caller rounds to the dtype).
std::optional<double> float_binary(FoldOp op, double a, double b) {
  switch (op) {
    case FoldOp::kAdd: return a + b;
    case FoldOp::kSub: return a - b;
    case FoldOp::kMul: return a * b;
    case FoldOp::kDiv: return a / b;
    case FoldOp::kFmod: return std::fmod(a, b);
    case FoldOp::kMax: return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b);
    case FoldOp::kMin: return std::isnan(a) || std::isnan(b) ? a + b : std::min(a, b);
    case FoldOp::kEqual: return a == b;
    case FoldOp::kLess: return a < b;
    case FoldOp::kLessEqual: return a <= b;
    case FoldOp::kGreater: return a > b;
    case FoldOp::kGreaterEqual: return a >= b;
    default: return std::nullopt;
  }
}

std::optional<Known> binary(NodeContext& cx, FoldOp op, const Known& a, const Known& b) {
  if (a.dtype != b.dtype) return std::nullopt;
  auto dims = fold_broadcast(a.dims, b.dims);
  if (!dims) return std::nullopt;
  auto ma = source_map(*dims, a.dims), mb = source_map(*dims, b.dims);
  Known r;
  r.dims = *dims;
  bool boolean = is_compare(op) || op == FoldOp::kAnd || op == FoldOp::kOr || op == FoldOp::kXor;
  r.dtype = boolean ? PLAIDML_DTYPE_BOOL : a.dtype;
  for (size_t f = 0; f < ma.size(); ++f) {
    if (a.floating()) {
      auto v = float_binary(op, a.floats[ma[f]], b.floats[mb[f]]);
      if (!v) return std::nullopt;
      if (boolean) r.ints.push_back(known(*v != 0));
      else r.floats.push_back(*v);
      continue;
    }
    const SymInt& x = a.ints[ma[f]];
    const SymInt& y = b.ints[mb[f]];
    std::optional<SymInt> v;
    if (x.known() && y.known()) {
      auto k = int_binary(op, a.dtype, *x.value, *y.value);
      if (k) v = known(*k);
    } else {
      v = sym_binary(cx, op, a.dtype, x, y);
    }
    if (!v) return std::nullopt;
    r.ints.push_back(*v);
  }
  return r;
}

std::optional<double> float_unary(FoldOp op, double x) {
  switch (op) {
    case FoldOp::kNeg: return -x;
    case FoldOp::kAbs: return std::fabs(x);
    case FoldOp::kSign: return std::isnan(x) ? x : (x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0));
    case FoldOp::kFloor: return std::floor(x);
    case FoldOp::kCeil: return std::ceil(x);
    case FoldOp::kRound: return std::nearbyint(x);  // the default mode: halves to even
    case FoldOp::kSqrt: return std::sqrt(x);
    case FoldOp::kReciprocal: return 1.0 / x;
    default: return std::nullopt;
  }
}

std::optional<SymInt> int_unary(FoldOp op, plaidml_dtype d, const SymInt& x) {
  if (!x.known()) {
    if (op == FoldOp::kNeg && (d == PLAIDML_DTYPE_INT64 || d == PLAIDML_DTYPE_INT32)) {
      return symbolic(-*x.expr);
    }
    return std::nullopt;
  }
  int64_t v = *x.value;
  bool negative = dtype_is_signed_int(d) && v < 0;
  switch (op) {
    case FoldOp::kNeg: return known(wrap(d, s(0 - u(v))));
    case FoldOp::kAbs: return known(negative ? wrap(d, s(0 - u(v))) : v);
    case FoldOp::kSign: return known(negative ? -1 : (v != 0 ? 1 : 0));
    case FoldOp::kNot: return known(v == 0 ? 1 : 0);
    default: return std::nullopt;
  }
}

std::optional<Known> unary(FoldOp op, const Known& a) {
  Known r;
  r.dtype = a.dtype;
  r.dims = a.dims;
  if (a.floating()) {
    for (double x : a.floats) {
      auto v = float_unary(op, x);
      if (!v) return std::nullopt;
      r.floats.push_back(*v);
    }
    return r;
  }
  for (const SymInt& x : a.ints) {
    auto v = int_unary(op, a.dtype, x);
    if (!v) return std::nullopt;
    r.ints.push_back(*v);
  }
  return r;
}

// A known float converted to integer dtype d: numpy truncates; out of range (and NaN) is
// undefined in ONNX, so it is not folded.
std::optional<int64_t> float_to_int(double x, plaidml_dtype d) {
  if (d == PLAIDML_DTYPE_BOOL) return x != 0 ? 1 : 0;  // NaN is true
  double t = std::trunc(x);
  if (std::isnan(t)) return std::nullopt;
  if (d == PLAIDML_DTYPE_UINT64) {
    if (t < 0 || t >= 18446744073709551616.0) return std::nullopt;
    return s(static_cast<uint64_t>(t));
  }
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
  int64_t v = static_cast<int64_t>(t);
  if (wrap(d, v) != v) return std::nullopt;
  return v;
}

// Whether storing x into float dtype d (through float, as HostTensor does) rounds only once.
bool rounds_once(double x, plaidml_dtype d) {
  if (d == PLAIDML_DTYPE_FLOAT64 || d == PLAIDML_DTYPE_FLOAT32) return true;
  return std::isnan(x) || static_cast<double>(static_cast<float>(x)) == x;
}

std::optional<Known> cast(const Known& a, plaidml_dtype to) {
  Known r;
  r.dtype = to;
  r.dims = a.dims;
  bool to_float = dtype_is_float(to);
  for (int64_t f = 0; f < a.count(); ++f) {
    if (a.floating()) {
      double x = a.floats[f];
      if (to_float) {
        if (!rounds_once(x, to)) return std::nullopt;
        r.floats.push_back(x);
      } else {
        auto v = float_to_int(x, to);
        if (!v) return std::nullopt;
        r.ints.push_back(known(*v));
      }
      continue;
    }
    const SymInt& x = a.ints[f];
    if (!x.known()) {
      // Sizes stay symbolic through integer casts wide enough for any size.
      if (to != PLAIDML_DTYPE_INT64 && to != PLAIDML_DTYPE_INT32) return std::nullopt;
      r.ints.push_back(x);
      continue;
    }
    int64_t v = *x.value;
    if (to_float) {
      double d = is_u64(a.dtype) ? static_cast<double>(u(v)) : static_cast<double>(v);
      // Exact in double up to 2^53; f16/bf16 are stored through float (one rounding up to 2^24).
      double limit = (to == PLAIDML_DTYPE_FLOAT64 || to == PLAIDML_DTYPE_FLOAT32) ? 9007199254740992.0
                                                                                 : 16777216.0;
      if (std::fabs(d) > limit) return std::nullopt;
      r.floats.push_back(d);
    } else {
      r.ints.push_back(known(wrap(to, v)));
    }
  }
  return r;
}

std::optional<Known> where(const Known& c, const Known& a, const Known& b) {
  if (a.dtype != b.dtype || c.floating()) return std::nullopt;
  auto ab = fold_broadcast(a.dims, b.dims);
  if (!ab) return std::nullopt;
  auto dims = fold_broadcast(c.dims, *ab);
  if (!dims) return std::nullopt;
  auto mc = source_map(*dims, c.dims), ma = source_map(*dims, a.dims),
       mb = source_map(*dims, b.dims);
  Known r;
  r.dtype = a.dtype;
  r.dims = *dims;
  for (size_t f = 0; f < mc.size(); ++f) {
    const SymInt& cond = c.ints[mc[f]];
    if (!cond.known()) return std::nullopt;
    bool take_a = *cond.value != 0;
    if (a.floating()) {
      r.floats.push_back(take_a ? a.floats[ma[f]] : b.floats[mb[f]]);
    } else {
      r.ints.push_back(take_a ? a.ints[ma[f]] : b.ints[mb[f]]);
    }
  }
  return r;
}

// Sets output 0 from a folded result; false when it cannot be held (symbolic and rank > 1).
bool set_known(NodeContext& cx, const Known& r) {
  if (r.floating()) {
    cx.set_output(0, HostTensor::from_doubles(r.dtype, r.dims, r.floats));
    return true;
  }
  bool all = std::all_of(r.ints.begin(), r.ints.end(), [](const SymInt& v) { return v.known(); });
  if (all) {
    std::vector<int64_t> values;
    for (const SymInt& v : r.ints) values.push_back(*v.value);
    cx.set_output(0, HostTensor::from_ints(r.dtype, r.dims, values));
    return true;
  }
  if (r.dims.size() > 1) return false;
  Value v;
  v.dtype = r.dtype;
  v.sizes = r.ints;
  v.is_sizes_scalar = r.dims.empty();
  cx.set_output(0, std::move(v));
  return true;
}

// Float arithmetic folds only in f32/f64 (one rounding from double is then exact).
bool foldable_dtype(const Known& k, FoldOp op) {
  if (op == FoldOp::kCast || op == FoldOp::kWhere) return true;
  return !k.floating() || k.dtype == PLAIDML_DTYPE_FLOAT32 || k.dtype == PLAIDML_DTYPE_FLOAT64;
}

}  // namespace

bool try_fold(NodeContext& cx, FoldOp op, plaidml_dtype dtype) {
  std::vector<Known> in;
  for (size_t i = 0; i < cx.input_count(); ++i) {
    if (!cx.has_input(i)) return false;
    auto k = known_input(cx, i);
    if (!k || !foldable_dtype(*k, op)) return false;
    in.push_back(std::move(*k));
  }
  if (in.empty()) return false;
  std::optional<Known> r;
  switch (op) {
    case FoldOp::kNeg: case FoldOp::kAbs: case FoldOp::kNot: case FoldOp::kSign:
    case FoldOp::kFloor: case FoldOp::kCeil: case FoldOp::kRound: case FoldOp::kSqrt:
    case FoldOp::kReciprocal:
      if (in.size() != 1) return false;
      r = unary(op, in[0]);
      break;
    case FoldOp::kCast:
      if (in.size() != 1) return false;
      r = cast(in[0], dtype);
      break;
    case FoldOp::kWhere:
      if (in.size() != 3) return false;
      r = where(in[0], in[1], in[2]);
      break;
    default:  // binary, or variadic applied left to right
      r = in[0];
      for (size_t k = 1; k < in.size() && r; ++k) r = binary(cx, op, *r, in[k]);
      break;
  }
  if (!r) return false;
  return set_known(cx, *r);
}

}  // namespace plaidml::onnx_import::elementwise
