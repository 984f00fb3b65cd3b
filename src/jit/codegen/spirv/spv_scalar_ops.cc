// The op table in SPIR-V (spv_scalar.h): the semantics of llvm_scalar.cc and cl_scalar_ops.cc.
// SPIR-V integer arithmetic wraps; divisions and shifts whose result SPIR-V leaves undefined
// (by 0, MIN / -1, shift amounts out of range) run on a safe operand and are then replaced by
// the loop IR's defined result.
#include "core/ir/op_cases.h"
#include "jit/codegen/spirv/spv_scalar.h"

namespace plaidml::jit::spirv {

using ir::OpKind;
using spv::Op;

namespace {

Status not_in_loop_ir(OpKind op, DType t) {
  return make_error(StatusCode::kInternal, "SPIR-V: op {} on {} is not in the loop IR",
                    ir::op_name(op), dtype_name(t));
}

// The comparisons are consecutive rows of the op table, in this order.
static_assert(int(OpKind::Ne) == int(OpKind::Eq) + 1 &&
              int(OpKind::Lt) == int(OpKind::Eq) + 2 &&
              int(OpKind::Gt) == int(OpKind::Eq) + 3 &&
              int(OpKind::Le) == int(OpKind::Eq) + 4 &&
              int(OpKind::Ge) == int(OpKind::Eq) + 5);
constexpr Op kSignedCompare[] = {Op::OpIEqual,         Op::OpINotEqual,
                                 Op::OpSLessThan,      Op::OpSGreaterThan,
                                 Op::OpSLessThanEqual, Op::OpSGreaterThanEqual};
constexpr Op kUnsignedCompare[] = {
    Op::OpIEqual,       Op::OpINotEqual,      Op::OpULessThan,
    Op::OpUGreaterThan, Op::OpULessThanEqual, Op::OpUGreaterThanEqual};
// Ordered, except != (true when either side is NaN, as in C and LLVM's fcmp une).
constexpr Op kFloatCompare[] = {
    Op::OpFOrdEqual,       Op::OpFUnordNotEqual,    Op::OpFOrdLessThan,
    Op::OpFOrdGreaterThan, Op::OpFOrdLessThanEqual, Op::OpFOrdGreaterThanEqual};

}  // namespace

Id SpvScalar::compare(OpKind op, DType t, Id a, Id b) {
  int i = int(op) - int(OpKind::Eq);  // op is a comparison: the callers' cases
  Op code = dtype_is_float(t)      ? kFloatCompare[i]
            : dtype_is_signed(t) ? kSignedCompare[i]
                                 : kUnsignedCompare[i];
  return b_.op(code, b_.type_bool(), {a, b});
}

Id SpvScalar::int_div(DType t, Id a, Id b, bool remainder) {
  Id ty = value_type(t);
  Id bt = b_.type_bool();
  bool is_signed = dtype_is_signed(t);
  Id zero = int_const(t, 0);
  Id by_zero = b_.op(Op::OpIEqual, bt, {b, zero});
  Id bad = by_zero;
  Id by_minus_one = 0;
  if (is_signed) {
    by_minus_one = b_.op(Op::OpIEqual, bt, {b, int_const(t, -1)});
    bad = b_.op(Op::OpLogicalOr, bt, {by_zero, by_minus_one});
  }
  Id safe = select(ty, bad, int_const(t, 1), b);
  Id r = 0;
  if (!is_signed) {
    r = b_.op(remainder ? Op::OpUMod : Op::OpUDiv, ty, {a, safe});
  } else {
    // No OpSRem: Vulkan leaves it undefined for negative operands, and NVIDIA's driver returns
    // other values there. a - (a / b) * b is C's truncating remainder from the defined SDiv.
    r = b_.op(Op::OpSDiv, ty, {a, safe});
    if (remainder) r = b_.op(Op::OpISub, ty, {a, b_.op(Op::OpIMul, ty, {r, safe})});
  }
  if (is_signed) {
    // x % -1 is 0; x / -1 is -x, wrapping for MIN.
    Id special = remainder ? zero : b_.op(Op::OpISub, ty, {zero, a});
    r = select(ty, by_minus_one, special, r);
  }
  return select(ty, by_zero, zero, r);
}

Id SpvScalar::shift(DType t, Id a, Id s, bool left) {
  Id ty = value_type(t);
  int bits = dtype_bits(t);
  // The amount as unsigned of the same width: negative amounts are out of range too.
  Id us = dtype_is_signed(t) ? b_.op(Op::OpBitcast, b_.type_int(bits, false), {s}) : s;
  Id out = b_.op(Op::OpUGreaterThanEqual, b_.type_bool(),
                 {us, b_.const_int(bits, false, static_cast<uint64_t>(bits))});
  Id safe = select(ty, out, int_const(t, 0), s);
  Op code = left ? Op::OpShiftLeftLogical
                 : (dtype_is_signed(t) ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical);
  Id r = b_.op(code, ty, {a, safe});
  return select(ty, out, int_const(t, 0), r);
}

Expected<Id> SpvScalar::int_op(OpKind op, DType t, const std::vector<Id>& v) {
  Id ty = value_type(t);
  bool s = dtype_is_signed(t);
  Id zero = int_const(t, 0);
  switch (op) {
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge: return compare(op, t, v[0], v[1]);
    case OpKind::Add: return b_.op(Op::OpIAdd, ty, {v[0], v[1]});
    case OpKind::Sub: return b_.op(Op::OpISub, ty, {v[0], v[1]});
    case OpKind::Mul: return b_.op(Op::OpIMul, ty, {v[0], v[1]});
    case OpKind::Neg: return b_.op(Op::OpISub, ty, {zero, v[0]});
    case OpKind::Div: return int_div(t, v[0], v[1], false);
    case OpKind::Mod: return int_div(t, v[0], v[1], true);
    case OpKind::Recip: return int_div(t, int_const(t, 1), v[0], false);
    case OpKind::BitAnd: return b_.op(Op::OpBitwiseAnd, ty, {v[0], v[1]});
    case OpKind::BitOr: return b_.op(Op::OpBitwiseOr, ty, {v[0], v[1]});
    case OpKind::BitXor: return b_.op(Op::OpBitwiseXor, ty, {v[0], v[1]});
    case OpKind::BitNot: return b_.op(Op::OpNot, ty, {v[0]});
    case OpKind::Shl: return shift(t, v[0], v[1], true);
    case OpKind::Shr: return shift(t, v[0], v[1], false);
    case OpKind::Abs: {
      if (!s) return v[0];
      Id neg = b_.op(Op::OpSLessThan, b_.type_bool(), {v[0], zero});
      return select(ty, neg, b_.op(Op::OpISub, ty, {zero, v[0]}), v[0]);
    }
    case OpKind::Sign: {
      Id pos = compare(OpKind::Gt, t, v[0], zero);
      Id r = select(ty, pos, int_const(t, 1), zero);
      if (!s) return r;
      Id neg = compare(OpKind::Lt, t, v[0], zero);
      return select(ty, neg, int_const(t, -1), r);
    }
    // GLSL.std.450 rather than compare-and-select: Mesa 22.3's lavapipe got
    // select(sext(x) > 0, sext(x), 0) wrong for negative x (gather's clamped indices).
    case OpKind::Max: return glsl(s ? GLSLstd450SMax : GLSLstd450UMax, t, v);
    case OpKind::Min: return glsl(s ? GLSLstd450SMin : GLSLstd450UMin, t, v);
    case OpKind::Relu:
      if (!s) return v[0];
      return select(ty, compare(OpKind::Lt, t, v[0], zero), zero, v[0]);
    case OpKind::Bitcast:  // bind allows 32 and 64 bits only
      return b_.op(Op::OpBitcast, value_type(dtype_size(t) == 8 ? DType::F64 : DType::F32),
                   {v[0]});
    case OpKind::Select: return select(ty, v[0], v[1], v[2]);
    case OpKind::IsNan:  // an integer is never NaN or infinite
    case OpKind::IsInf: return b_.const_bool(false);
    // Float functions: their operands were cast to a float type before code generation.
    PLAIDML_OPS_MATH  // the float functions (op_cases.h)
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return not_in_loop_ir(op, t);
  }
  return not_in_loop_ir(op, t);
}

// Arithmetic on bool operands follows the interpreter: computed on 0/1, then != 0 (in u32:
// on 0/1 operands every arith and numeric op gives a result that is 0 exactly when the u64
// computation does). Logic, shifts and comparisons stay on bools.
Expected<Id> SpvScalar::bool_op(OpKind op, const std::vector<Id>& v) {
  Id bt = b_.type_bool();
  switch (op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Mod:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Sign:
    case OpKind::Recip:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Relu:
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge: {
      std::vector<Id> wide;
      for (Id a : v) wide.push_back(cast(a, DType::Bool, DType::U32));
      PLAIDML_ASSIGN(Id r, int_op(op, DType::U32, wide));
      return ir::op_category(op) == ir::OpCategory::kCompare ? r
                                                              : cast(r, DType::U32, DType::Bool);
    }
    case OpKind::BitAnd: return b_.op(Op::OpLogicalAnd, bt, {v[0], v[1]});
    case OpKind::BitOr: return b_.op(Op::OpLogicalOr, bt, {v[0], v[1]});
    case OpKind::BitXor: return b_.op(Op::OpLogicalNotEqual, bt, {v[0], v[1]});
    case OpKind::BitNot: return b_.op(Op::OpLogicalNot, bt, {v[0]});
    // A one-bit shift: by 0 keeps the value, by 1 (out of range) gives 0.
    case OpKind::Shl:
    case OpKind::Shr: return b_.op(Op::OpLogicalAnd, bt, {v[0], b_.op(Op::OpLogicalNot, bt, {v[1]})});
    case OpKind::Select: return select(bt, v[0], v[1], v[2]);
    case OpKind::IsNan:
    case OpKind::IsInf: return b_.const_bool(false);
    PLAIDML_OPS_MATH  // the float functions (op_cases.h)
    case OpKind::Bitcast:  // bind refuses bool
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return not_in_loop_ir(op, DType::Bool);
  }
  return not_in_loop_ir(op, DType::Bool);
}

Expected<Id> SpvScalar::float_op(OpKind op, DType t, const std::vector<Id>& v) {
  Id ty = value_type(t);
  Id zero = float_const(t, 0), one = float_const(t, 1);
  Id bt = b_.type_bool();
  switch (op) {
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge: return compare(op, t, v[0], v[1]);
    case OpKind::Add: return b_.op(Op::OpFAdd, ty, {v[0], v[1]});
    case OpKind::Sub: return b_.op(Op::OpFSub, ty, {v[0], v[1]});
    case OpKind::Mul: return b_.op(Op::OpFMul, ty, {v[0], v[1]});
    case OpKind::Div: return div_rn(t, v[0], v[1]);
    case OpKind::Mod: return fmod_c(t, v[0], v[1]);
    case OpKind::Neg: return b_.op(Op::OpFNegate, ty, {v[0]});
    case OpKind::Recip: return b_.op(Op::OpFDiv, ty, {one, v[0]});
    case OpKind::Abs: return glsl(GLSLstd450FAbs, t, v);
    case OpKind::Max: return glsl(GLSLstd450NMax, t, v);  // a NaN operand gives the other
    case OpKind::Min: return glsl(GLSLstd450NMin, t, v);
    case OpKind::Relu:
      return select(ty, b_.op(Op::OpFOrdLessThan, bt, {v[0], zero}), zero, v[0]);
    case OpKind::Bitcast:  // bind allows f32 and f64 only
      return b_.op(Op::OpBitcast, value_type(t == DType::F64 ? DType::I64 : DType::I32), {v[0]});
    case OpKind::Sign: {
      Id r = select(ty, b_.op(Op::OpFOrdLessThan, bt, {v[0], zero}), float_const(t, -1), zero);
      r = select(ty, b_.op(Op::OpFOrdGreaterThan, bt, {v[0], zero}), one, r);
      return select(ty, b_.op(Op::OpIsNan, bt, {v[0]}), v[0], r);
    }
    case OpKind::Select: return select(ty, v[0], v[1], v[2]);
    case OpKind::IsNan: return b_.op(Op::OpIsNan, bt, {v[0]});
    case OpKind::IsInf: return b_.op(Op::OpIsInf, bt, {v[0]});
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Pow:
    case OpKind::Tanh:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Sinh:
    case OpKind::Cosh:
    case OpKind::Asin:
    case OpKind::Acos:
    case OpKind::Atan:
    case OpKind::Asinh:
    case OpKind::Acosh:
    case OpKind::Atanh:
    case OpKind::Erf:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::RoundEven:
    case OpKind::Sigmoid: return math(op, t, v);
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
    case OpKind::BitNot:
    case OpKind::Shl:
    case OpKind::Shr:
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return not_in_loop_ir(op, t);
  }
  return not_in_loop_ir(op, t);
}

Expected<Id> SpvScalar::op(OpKind op, DType operand, const std::vector<Id>& args) {
  int arity = ir::op_arity(op);
  if (arity >= 0 && static_cast<size_t>(arity) != args.size()) {
    return make_error(StatusCode::kInternal, "SPIR-V: op {} has {} operands, expected {}",
                      ir::op_name(op), args.size(), arity);
  }
  if (operand == DType::Bool) return bool_op(op, args);
  if (dtype_is_float(operand)) return float_op(op, operand, args);
  return int_op(op, operand, args);
}

}  // namespace plaidml::jit::spirv
