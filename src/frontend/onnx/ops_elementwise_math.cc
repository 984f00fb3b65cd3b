// Arithmetic and math functions: Add Sub Mul Div Pow Mod, Max Min Sum Mean, Clip, and the unary
// functions (Abs Neg Sign Reciprocal Floor Ceil Round Sqrt Exp Log, trigonometry, Erf).
#include <cfloat>

#include "ops_elementwise_util.h"

namespace plaidml::onnx_import::elementwise {
namespace {

// A Tile function of one float operand, same dtype out.
template <const char* kFunction>
void unary_float(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0)}), cx.dtype(0));
}

// The same, folded when the input is known (only functions that round exactly on the host).
template <const char* kFunction, FoldOp kFold>
void unary_float_folding(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  if (try_fold(cx, kFold)) return;
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0)}), cx.dtype(0));
}

// Abs, Neg, Sign: Tile's functions keep the operand's dtype (integers included).
template <const char* kFunction, FoldOp kFold>
void unary_numeric(NodeContext& cx) {
  cx.check_attrs({});
  if (kFold == FoldOp::kNeg) {
    cx.require_dtype(0, concat_types(float_types(), signed_types()));
  } else {
    cx.require_dtype(0, numeric_types());
  }
  if (try_fold(cx, kFold)) return;
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0)}), cx.dtype(0));
}

// Erf-9 also takes integers: erf in f32, truncated back (as the reference computes it).
void convert_erf(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, numeric_types());
  plaidml_dtype d = cx.dtype(0);
  plaidml::Tensor r = plaidml::erf(cx.tensor(0));
  cx.set_output(0, is_float(d) ? r : cast_to(r, d), d);
}

void convert_round(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  if (try_fold(cx, FoldOp::kRound)) return;
  // ONNX rounds halves to the even neighbour: Tile's round_even (its round is C's).
  cx.set_output(0, plaidml::round_even(cx.tensor(0)), cx.dtype(0));
}

// Add, Sub, Mul, Div: one dtype T, numpy broadcasting. Integer Div truncates toward zero in
// Tile as in ONNX.
template <const char* kFunction, FoldOp kFold>
void binary_arith(NodeContext& cx) {
  cx.check_attrs({});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, numeric_types());
  if (try_fold(cx, kFold)) return;
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0), cx.tensor(1)}), cx.dtype(0));
}

// Number of bits an exponent can need: its dtype's (less the sign), or fewer when known.
int exponent_bits(NodeContext& cx) {
  plaidml_dtype e = cx.dtype(1);
  int bits = static_cast<int>(dtype_bytes(e) * 8) - (dtype_is_signed_int(e) ? 1 : 0);
  if (auto known = cx.known_ints(1)) {
    int64_t top = 0;
    for (int64_t v : *known) top = std::max(top, v);
    int need = 0;
    while (need < bits && (top >> need) != 0) ++need;
    return need;
  }
  return bits;
}

// Integer base and exponent: exact binary exponentiation (wrapping as numpy's integers do).
// A negative exponent gives what integer division would: 1 for x = 1, +-1 for x = -1, else 0.
plaidml::Tensor int_pow(NodeContext& cx, const plaidml::Tensor& x, const plaidml::Tensor& y) {
  plaidml_dtype t = cx.dtype(0), e = cx.dtype(1);
  plaidml::Tensor one = cst_int(cx, t, 1);
  plaidml::Tensor r = one, p = x;
  int bits = exponent_bits(cx);
  for (int k = 0; k < bits; ++k) {
    plaidml::Tensor bit = plaidml::ne((y >> cst_int(cx, e, k)) & cst_int(cx, e, 1), cst_int(cx, e, 0));
    r = plaidml::select(bit, r * p, r);
    if (k + 1 < bits) p = p * p;
  }
  if (!dtype_is_signed_int(e)) return r;
  plaidml::Tensor odd = plaidml::ne(y & cst_int(cx, e, 1), cst_int(cx, e, 0));
  plaidml::Tensor minus_one = cst_int(cx, t, -1), zero = cst_int(cx, t, 0);
  plaidml::Tensor neg = plaidml::select(plaidml::eq(x, one), one,
                                        plaidml::select(plaidml::eq(x, minus_one),
                                                        plaidml::select(odd, minus_one, one), zero));
  return plaidml::select(y < cst_int(cx, e, 0), neg, r);
}

// Pow: from version 12 the exponent may have another numeric type; the result has the base's
// type (numpy computes mixed types in the wider one, then converts back).
void convert_pow(NodeContext& cx) {
  cx.check_attrs({});
  plaidml_dtype t = cx.dtype(0), e = cx.dtype(1);
  cx.require_dtype(0, concat_types(float_types(), {PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64}));
  cx.require_dtype(1, numeric_types());
  if (cx.version() < 12) require_same_dtype(cx, 0, 1);
  plaidml::Tensor x = cx.tensor(0), y = cx.tensor(1);
  if (t == e && is_float(t)) return cx.set_output(0, plaidml::pow(x, y), t);
  if (!is_float(t) && !is_float(e)) return cx.set_output(0, int_pow(cx, x, y), t);
  plaidml::Tensor wide = plaidml::pow(cast_to(x, PLAIDML_DTYPE_FLOAT64), cast_to(y, PLAIDML_DTYPE_FLOAT64));
  cx.set_output(0, cast_to(wide, t), t);
}

// Mod: fmod=1 is C's remainder (Tile's %); fmod=0 takes the divisor's sign (numpy's mod).
void convert_mod(NodeContext& cx) {
  cx.check_attrs({"fmod"});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, numeric_types());
  int64_t fmod = cx.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) invalid("attribute 'fmod' must be 0 or 1, not {}", fmod);
  plaidml_dtype d = cx.dtype(0);
  if (try_fold(cx, fmod ? FoldOp::kFmod : FoldOp::kMod)) return;
  plaidml::Tensor x = cx.tensor(0), y = cx.tensor(1);
  plaidml::Tensor r = x % y;
  if (fmod == 1 || dtype_is_unsigned_int(d)) return cx.set_output(0, r, d);
  plaidml::Tensor zero = is_float(d) ? cst(cx, d, 0.0) : cst_int(cx, d, 0);
  plaidml::Tensor differ = plaidml::ne(r < zero, y < zero);
  r = plaidml::select(logical_and(plaidml::ne(r, zero), differ), r + y, r);
  if (is_float(d)) {
    // A zero remainder takes the divisor's sign (numpy; Mod-28's rule).
    plaidml::Tensor signed_zero = plaidml::select(y < zero, cst(cx, d, -0.0), zero);
    r = plaidml::select(plaidml::eq(r, zero), signed_zero, r);
  }
  cx.set_output(0, r, d);
}

// Max, Min, Sum, Mean: variadic with numpy broadcasting, applied left to right.
template <FoldOp kFold>
void variadic(NodeContext& cx) {
  cx.check_attrs({});
  if (cx.input_count() == 0) invalid("needs at least one input");
  for (size_t i = 0; i < cx.input_count(); ++i) {
    if (!cx.has_input(i)) invalid("input {} is missing", i);
    require_same_dtype(cx, 0, i);
  }
  cx.require_dtype(0, numeric_types());
  plaidml_dtype d = cx.dtype(0);
  if (try_fold(cx, kFold)) return;
  plaidml::Tensor r = cx.tensor(0);
  for (size_t i = 1; i < cx.input_count(); ++i) {
    plaidml::Tensor b = cx.tensor(i);
    r = kFold == FoldOp::kMax ? nan_max(r, b, d) : kFold == FoldOp::kMin ? nan_min(r, b, d) : r + b;
  }
  cx.set_output(0, r, d);
}

void convert_mean(NodeContext& cx) {
  cx.check_attrs({});
  if (cx.input_count() == 0) invalid("needs at least one input");
  for (size_t i = 0; i < cx.input_count(); ++i) require_same_dtype(cx, 0, i);
  cx.require_dtype(0, float_types());
  plaidml_dtype d = cx.dtype(0);
  plaidml::Tensor r = cx.tensor(0);
  for (size_t i = 1; i < cx.input_count(); ++i) r = r + cx.tensor(i);
  cx.set_output(0, r / cst(cx, d, static_cast<double>(cx.input_count())), d);
}

// Clip: bounds from attributes (versions 1-6, default +-FLT_MAX) or optional inputs (11+).
void convert_clip(NodeContext& cx) {
  plaidml_dtype d = cx.dtype(0);
  plaidml::Tensor x = cx.tensor(0);
  if (cx.version() < 11) {
    cx.check_attrs({"min", "max"});
    cx.require_dtype(0, float_types());
    plaidml::Tensor lo = cst(cx, d, cx.attr_float("min", -FLT_MAX));
    plaidml::Tensor hi = cst(cx, d, cx.attr_float("max", FLT_MAX));
    return cx.set_output(0, clip(x, lo, hi), d);
  }
  cx.check_attrs({});
  cx.require_dtype(0, numeric_types());
  if (cx.input_count() > 3) invalid("has {} inputs; Clip takes at most 3", cx.input_count());
  for (size_t i = 1; i < 3; ++i) {
    if (cx.has_input(i)) require_same_dtype(cx, 0, i);
  }
  // numpy's clip: maximum with min first, then minimum with max (min > max gives max).
  plaidml::Tensor r = x;
  if (cx.has_input(1)) r = plaidml::select(r < cx.tensor(1), cx.tensor(1), r);
  if (cx.has_input(2)) r = plaidml::select(r > cx.tensor(2), cx.tensor(2), r);
  cx.set_output(0, r, d);
}

constexpr char kAbs[] = "abs";
constexpr char kNeg[] = "neg";
constexpr char kSign[] = "sign";
constexpr char kRecip[] = "recip";
constexpr char kFloor[] = "floor";
constexpr char kCeil[] = "ceil";
constexpr char kSqrt[] = "sqrt";
constexpr char kExp[] = "exp";
constexpr char kLog[] = "log";
constexpr char kSin[] = "sin";
constexpr char kCos[] = "cos";
constexpr char kTan[] = "tan";
constexpr char kAsin[] = "asin";
constexpr char kAcos[] = "acos";
constexpr char kAtan[] = "atan";
constexpr char kSinh[] = "sinh";
constexpr char kCosh[] = "cosh";
constexpr char kAsinh[] = "asinh";
constexpr char kAcosh[] = "acosh";
constexpr char kAtanh[] = "atanh";
constexpr char kAdd[] = "add";
constexpr char kSub[] = "sub";
constexpr char kMul[] = "mul";
constexpr char kDiv[] = "div";

}  // namespace

std::vector<ConverterEntry> math_converters() {
  return {
      {"Abs", {6, 13}, unary_numeric<kAbs, FoldOp::kAbs>},
      {"Neg", {6, 13}, unary_numeric<kNeg, FoldOp::kNeg>},
      {"Sign", {9, 13}, unary_numeric<kSign, FoldOp::kSign>},
      {"Reciprocal", {6, 13}, unary_float_folding<kRecip, FoldOp::kReciprocal>},
      {"Floor", {6, 13}, unary_float_folding<kFloor, FoldOp::kFloor>},
      {"Ceil", {6, 13}, unary_float_folding<kCeil, FoldOp::kCeil>},
      {"Sqrt", {6, 13}, unary_float_folding<kSqrt, FoldOp::kSqrt>},
      {"Round", {11, 22}, convert_round},
      {"Exp", {6, 13}, unary_float<kExp>},
      {"Log", {6, 13}, unary_float<kLog>},
      {"Sin", {7, 22}, unary_float<kSin>},
      {"Cos", {7, 22}, unary_float<kCos>},
      {"Tan", {7, 22}, unary_float<kTan>},
      {"Asin", {7, 22}, unary_float<kAsin>},
      {"Acos", {7, 22}, unary_float<kAcos>},
      {"Atan", {7, 22}, unary_float<kAtan>},
      {"Sinh", {9, 22}, unary_float<kSinh>},
      {"Cosh", {9, 22}, unary_float<kCosh>},
      {"Asinh", {9, 22}, unary_float<kAsinh>},
      {"Acosh", {9, 22}, unary_float<kAcosh>},
      {"Atanh", {9, 22}, unary_float<kAtanh>},
      {"Erf", {9, 13}, convert_erf},
      {"Add", {7, 13, 14}, binary_arith<kAdd, FoldOp::kAdd>},
      {"Sub", {7, 13, 14}, binary_arith<kSub, FoldOp::kSub>},
      {"Mul", {7, 13, 14}, binary_arith<kMul, FoldOp::kMul>},
      {"Div", {7, 13, 14}, binary_arith<kDiv, FoldOp::kDiv>},
      {"Pow", {7, 12, 13, 15}, convert_pow},
      {"Mod", {10, 13, 28}, convert_mod},
      {"Max", {6, 8, 12, 13}, variadic<FoldOp::kMax>},
      {"Min", {6, 8, 12, 13}, variadic<FoldOp::kMin>},
      {"Sum", {6, 8, 13}, variadic<FoldOp::kAdd>},
      {"Mean", {6, 8, 13}, convert_mean},
      {"Clip", {6, 11, 12, 13}, convert_clip},
  };
}

}  // namespace plaidml::onnx_import::elementwise
