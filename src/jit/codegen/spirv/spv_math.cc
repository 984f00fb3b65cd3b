// The float functions of the op table (SpvScalar::math) through GLSL.std.450. Exp, Log, Pow
// and the trigonometric and hyperbolic functions exist there for 16- and 32-bit floats only: on
// f64 they run in f32 (converted in and out), so f64 results of those functions have f32
// precision. erf is not in GLSL.std.450: a minimax polynomial (below).
#include "core/ir/op_cases.h"
#include "jit/codegen/spirv/spv_scalar.h"

namespace plaidml::jit::spirv {

using ir::OpKind;
using spv::Op;

Id SpvScalar::glsl(GLSLstd450 inst, DType t, const std::vector<Id>& v) {
  return b_.ext(inst, value_type(t), v);
}

Id SpvScalar::glsl_f32_only(GLSLstd450 inst, DType t, const std::vector<Id>& v) {
  if (t != DType::F64) return glsl(inst, t, v);
  std::vector<Id> narrow;
  for (Id a : v) narrow.push_back(b_.op(Op::OpFConvert, b_.type_float(32), {a}));
  Id r = glsl(inst, DType::F32, narrow);
  return b_.op(Op::OpFConvert, b_.type_float(64), {r});
}

// Halfway cases away from zero (llvm.round, C round): GLSL's Round leaves them open and
// RoundEven rounds to even. x - trunc(x) is exact.
Id SpvScalar::round_half_away(DType t, Id x) {
  Id ty = value_type(t);
  Id truncated = glsl(GLSLstd450Trunc, t, {x});
  Id frac = glsl(GLSLstd450FAbs, t, {b_.op(Op::OpFSub, ty, {x, truncated})});
  Id half = b_.op(Op::OpFOrdGreaterThanEqual, b_.type_bool(), {frac, float_const(t, 0.5)});
  Id away = b_.op(Op::OpFAdd, ty, {truncated, glsl(GLSLstd450FSign, t, {x})});
  return select(ty, half, away, truncated);
}

// C's pow: GLSL's Pow is undefined for x < 0 and for x = 0, y <= 0 (drivers compute
// exp2(y * log2(x)): NaN at pow(-1, 3), at pow(0, 0)). Here: |x|^y, negated for a negative x and
// an odd integer y, NaN for a negative x and a non-integer y, and 1 whenever y = 0.
Id SpvScalar::pow_c(DType t, Id x, Id y) {
  Id ty = value_type(t);
  Id bt = b_.type_bool();
  Id zero = float_const(t, 0), one = float_const(t, 1);
  Id r = glsl_f32_only(GLSLstd450Pow, t, {glsl(GLSLstd450FAbs, t, {x}), y});
  Id negative = b_.op(Op::OpFOrdLessThan, bt, {x, zero});
  Id integral = b_.op(Op::OpFOrdEqual, bt, {glsl(GLSLstd450Floor, t, {y}), y});
  Id half_y = b_.op(Op::OpFMul, ty, {y, float_const(t, 0.5)});
  Id even = b_.op(Op::OpFOrdEqual, bt, {glsl(GLSLstd450Floor, t, {half_y}), half_y});
  Id odd = b_.op(Op::OpLogicalAnd, bt, {integral, b_.op(Op::OpLogicalNot, bt, {even})});
  r = select(ty, b_.op(Op::OpLogicalAnd, bt, {negative, odd}), b_.op(Op::OpFNegate, ty, {r}), r);
  Id nan = b_.op(Op::OpFDiv, ty, {zero, zero});
  Id no_real = b_.op(Op::OpLogicalAnd, bt, {negative, b_.op(Op::OpLogicalNot, bt, {integral})});
  r = select(ty, no_real, nan, r);
  return select(ty, b_.op(Op::OpFOrdEqual, bt, {y, zero}), one, r);
}

// C's fmod (the sign of x): OpFRem, except that fmod(x, +-inf) is x for a finite x, where
// drivers compute x - y * trunc(x / y) = inf * 0 = NaN.
Id SpvScalar::fmod_c(DType t, Id x, Id y) {
  Id ty = value_type(t);
  Id bt = b_.type_bool();
  Id r = b_.op(Op::OpFRem, ty, {x, y});
  Id keep_x = b_.op(Op::OpLogicalAnd, bt, {b_.op(Op::OpIsInf, bt, {y}),
                                           b_.op(Op::OpLogicalNot, bt, {b_.op(Op::OpIsInf, bt, {x})})});
  return select(ty, keep_x, x, r);
}

// a / b to within half an ulp: Vulkan lets OpFDiv be 2.5 ulp off (NVIDIA's is), which moved a
// round(x / scale) across a .5. One correction with the exact residual r = a - q * b (an FMA)
// gives q + r / b; where q is not finite (b = 0, overflow) r is NaN and q stands.
Id SpvScalar::div_rn(DType t, Id a, Id b) {
  Id ty = value_type(t);
  Id bt = b_.type_bool();
  Id q = b_.op(Op::OpFDiv, ty, {a, b});
  if (t == DType::F16) return q;  // computed in f32 by every driver we know, then rounded
  Id r = b_.ext(GLSLstd450Fma, ty, {b_.op(Op::OpFNegate, ty, {q}), b, a});
  Id q1 = b_.op(Op::OpFAdd, ty, {q, b_.op(Op::OpFDiv, ty, {r, b})});
  Id bad = b_.op(Op::OpLogicalOr, bt, {b_.op(Op::OpIsNan, bt, {q1}), b_.op(Op::OpIsInf, bt, {q1})});
  return select(ty, bad, q, q1);
}

// erf in f32, within about 1 ulp (max error 0.99 ulp in each branch as published for this
// minimax fit; checked here against std::erf at 8e6 points in [-20, 20]): a polynomial in x^2
// for |x| <= 0.9277, else 1 - exp(polynomial in |x|) with the sign of x.
Id SpvScalar::erf_f32(Id x) {
  Id f = b_.type_float(32);
  auto c = [&](double v) { return b_.const_float(32, v); };
  auto fma = [&](Id a, Id b, Id d) { return b_.ext(GLSLstd450Fma, f, {a, b, d}); };
  Id t = b_.ext(GLSLstd450FAbs, f, {x});
  Id s = b_.op(Op::OpFMul, f, {x, x});
  // |x| > 0.927734375
  Id r = fma(c(-1.72853470e-5), t, c(3.83197126e-4));
  Id u = fma(c(-3.88396438e-3), t, c(2.42546219e-2));
  r = fma(r, s, u);
  r = fma(r, t, c(-1.06777877e-1));
  r = fma(r, t, c(-6.34846687e-1));
  r = fma(r, t, c(-1.28717512e-1));
  r = fma(r, t, b_.op(Op::OpFNegate, f, {t}));
  Id big = b_.op(Op::OpFSub, f, {c(1.0), b_.ext(GLSLstd450Exp, f, {r})});
  Id negative = b_.op(Op::OpFOrdLessThan, b_.type_bool(), {x, c(0.0)});
  big = select(f, negative, b_.op(Op::OpFNegate, f, {big}), big);
  // |x| <= 0.927734375
  Id p = fma(c(-5.96761703e-4), s, c(4.99119423e-3));
  p = fma(p, s, c(-2.67681349e-2));
  p = fma(p, s, c(1.12819925e-1));
  p = fma(p, s, c(-3.76125336e-1));
  p = fma(p, s, c(1.28379166e-1));
  Id small = fma(p, x, x);
  Id is_big = b_.op(Op::OpFOrdGreaterThan, b_.type_bool(), {t, c(0.927734375)});
  return select(f, is_big, big, small);  // NaN: the small branch, which keeps it
}

Expected<Id> SpvScalar::math(OpKind op, DType t, const std::vector<Id>& v) {
  Id ty = value_type(t);
  Id one = float_const(t, 1);
  Id bt = b_.type_bool();
  switch (op) {
    case OpKind::Sqrt: return glsl(GLSLstd450Sqrt, t, v);
    case OpKind::Floor: return glsl(GLSLstd450Floor, t, v);
    case OpKind::Ceil: return glsl(GLSLstd450Ceil, t, v);
    case OpKind::Round: return round_half_away(t, v[0]);
    case OpKind::RoundEven: return glsl(GLSLstd450RoundEven, t, v);
    case OpKind::Pow: return pow_c(t, v[0], v[1]);
    case OpKind::Sigmoid: {
      Id e = glsl_f32_only(GLSLstd450Exp, t, {b_.op(Op::OpFNegate, ty, {v[0]})});
      return b_.op(Op::OpFDiv, ty, {one, b_.op(Op::OpFAdd, ty, {one, e})});
    }
    case OpKind::Tanh: {
      // Drivers may compute tanh from exp, giving inf/inf = NaN for large |x|; tanh is
      // +-1 in f32 (and f64 computed in f32) well before |x| = 20.
      // Near 0 the same exp form cancels (lavapipe: 1e-3 relative at x = 5e-5): there the
      // series x - x^3/3 + 2x^5/15, whose error is below 1e-9 relative for |x| < 0.05.
      Id r = glsl_f32_only(GLSLstd450Tanh, t, v);
      Id abs_x = glsl(GLSLstd450FAbs, t, v);
      Id large = b_.op(Op::OpFOrdGreaterThan, bt, {abs_x, float_const(t, 20.0)});
      Id small = b_.op(Op::OpFOrdLessThan, bt, {abs_x, float_const(t, 0.05)});
      Id x2 = b_.op(Op::OpFMul, ty, {v[0], v[0]});
      Id poly = b_.op(Op::OpFAdd, ty, {float_const(t, -1.0 / 3.0),
                                       b_.op(Op::OpFMul, ty, {x2, float_const(t, 2.0 / 15.0)})});
      poly = b_.op(Op::OpFAdd, ty, {float_const(t, 1.0), b_.op(Op::OpFMul, ty, {x2, poly})});
      poly = b_.op(Op::OpFMul, ty, {v[0], poly});
      r = select(ty, small, poly, r);
      return select(ty, large, glsl(GLSLstd450FSign, t, v), r);
    }
    case OpKind::Acos:
    case OpKind::Asin: {
      // acos(x) = atan2(sqrt((1 - x)(1 + x)), x) and asin(x) = atan2(x, sqrt(...)): lavapipe's
      // Acos and Asin are off by 1e-4 relative.
      Id root = glsl(GLSLstd450Sqrt, t, {b_.op(Op::OpFMul, ty, {b_.op(Op::OpFSub, ty, {one, v[0]}),
                                                            b_.op(Op::OpFAdd, ty, {one, v[0]})})});
      if (op == OpKind::Asin) return glsl_f32_only(GLSLstd450Atan2, t, {v[0], root});
      return glsl_f32_only(GLSLstd450Atan2, t, {root, v[0]});
    }
    case OpKind::Erf: {
      if (t != DType::F64) return erf_f32(v[0]);
      Id narrow = b_.op(Op::OpFConvert, b_.type_float(32), {v[0]});
      return b_.op(Op::OpFConvert, ty, {erf_f32(narrow)});
    }
    case OpKind::Exp: return glsl_f32_only(GLSLstd450Exp, t, v);
    case OpKind::Log: return glsl_f32_only(GLSLstd450Log, t, v);
    case OpKind::Sin: return glsl_f32_only(GLSLstd450Sin, t, v);
    case OpKind::Cos: return glsl_f32_only(GLSLstd450Cos, t, v);
    case OpKind::Tan: return glsl_f32_only(GLSLstd450Tan, t, v);
    case OpKind::Sinh: return glsl_f32_only(GLSLstd450Sinh, t, v);
    case OpKind::Cosh: return glsl_f32_only(GLSLstd450Cosh, t, v);
    case OpKind::Atan: return glsl_f32_only(GLSLstd450Atan, t, v);
    case OpKind::Asinh: return glsl_f32_only(GLSLstd450Asinh, t, v);
    case OpKind::Acosh: return glsl_f32_only(GLSLstd450Acosh, t, v);
    case OpKind::Atanh: return glsl_f32_only(GLSLstd450Atanh, t, v);
    // Not float functions: float_op handles them (op_cases.h lists every other row, so that
    // a new float function makes the compiler name this switch).
    PLAIDML_OPS_EXCEPT_MATH break;
  }
  return make_error(StatusCode::kInternal, "SPIR-V: op {} on {} is not a float function",
                    ir::op_name(op), dtype_name(t));
}

}  // namespace plaidml::jit::spirv
