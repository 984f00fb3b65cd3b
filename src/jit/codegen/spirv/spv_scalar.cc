// Types, constants, conversions and storage forms of spv_scalar.h (the ops: spv_scalar_ops.cc,
// the float functions: spv_math.cc).
#include <cmath>

#include "core/types/half.h"
#include "jit/codegen/spirv/spv_scalar.h"

namespace plaidml::jit::spirv {

using spv::Op;

Id SpvScalar::value_type(DType t) {
  switch (t) {
    case DType::Bool: return b_.type_bool();
    case DType::F16:
    case DType::BF16:
    case DType::F32: return b_.type_float(32);
    case DType::F64: return b_.type_float(64);
    default: return b_.type_int(dtype_bits(t), dtype_is_signed(t));
  }
}

Id SpvScalar::storage_type(DType t) {
  switch (t) {
    case DType::Bool: return b_.type_int(8, false);
    case DType::F16:
    case DType::BF16: return b_.type_int(16, false);
    default: return value_type(t);
  }
}

int SpvScalar::storage_bytes(DType t) { return static_cast<int>(dtype_size(t)); }

Id SpvScalar::int_const(DType t, int64_t v) {
  if (t == DType::Bool) return b_.const_bool(v != 0);
  if (dtype_is_float(t)) return float_const(t, static_cast<double>(v));
  return b_.const_int(dtype_bits(t), dtype_is_signed(t), static_cast<uint64_t>(v));
}

Id SpvScalar::float_const(DType t, double v) {
  if (!dtype_is_float(t)) return int_const(t, static_cast<int64_t>(v));
  if (t == DType::F16) v = round_to_f16(static_cast<float>(v));
  if (t == DType::BF16) v = round_to_bf16(static_cast<float>(v));
  return b_.const_float(t == DType::F64 ? 64 : 32, v);
}

Id SpvScalar::constant(const loop::Expr& e) {
  if (dtype_is_float(e.dtype)) return float_const(e.dtype, e.float_value);
  return int_const(e.dtype, e.int_value);
}

Id SpvScalar::select(Id type, Id cond, Id a, Id b) {
  return b_.op(Op::OpSelect, type, {cond, a, b});
}

// f32 -> f16 -> f32 through the u32 forms of GLSL.std.450 (round to nearest even on the
// drivers we know; the spec leaves the rounding of packHalf2x16 to the implementation).
Id SpvScalar::round_f16(Id f32) {
  Id f = b_.type_float(32);
  Id v2 = b_.type_vector(f, 2);
  Id pair = b_.op(Op::OpCompositeConstruct, v2, {f32, b_.const_float(32, 0.0)});
  Id packed = b_.ext(GLSLstd450PackHalf2x16, b_.type_int(32, false), {pair});
  Id back = b_.ext(GLSLstd450UnpackHalf2x16, v2, {packed});
  return b_.op(Op::OpCompositeExtract, f, {back, 0});
}

// The CPU codegen's bf16 rounding: to nearest even, NaN kept quiet.
Id SpvScalar::bf16_bits(Id f32) {
  Id u = b_.type_int(32, false);
  Id bits = b_.op(Op::OpBitcast, u, {f32});
  Id high = b_.op(Op::OpShiftRightLogical, u, {bits, b_.const_int(32, false, 16)});
  Id odd = b_.op(Op::OpBitwiseAnd, u, {high, b_.const_int(32, false, 1)});
  Id biased = b_.op(Op::OpIAdd, u, {bits, b_.const_int(32, false, 0x7FFF)});
  biased = b_.op(Op::OpIAdd, u, {biased, odd});
  Id rounded = b_.op(Op::OpShiftRightLogical, u, {biased, b_.const_int(32, false, 16)});
  Id quiet = b_.op(Op::OpBitwiseOr, u, {high, b_.const_int(32, false, 0x40)});
  Id nan = b_.op(Op::OpIsNan, b_.type_bool(), {f32});
  return select(u, nan, quiet, rounded);
}

Id SpvScalar::round_bf16(Id f32) {
  Id u = b_.type_int(32, false);
  Id bits = b_.op(Op::OpShiftLeftLogical, u, {bf16_bits(f32), b_.const_int(32, false, 16)});
  return b_.op(Op::OpBitcast, b_.type_float(32), {bits});
}

// Truncating, saturating, NaN gives 0. The conversion itself only ever sees in-range values
// (SPIR-V leaves out-of-range conversions undefined).
Id SpvScalar::float_to_int(Id v, DType from, DType to) {
  DType ft = from == DType::F64 ? DType::F64 : DType::F32;
  Id fty = value_type(ft);
  Id bt = b_.type_bool();
  int bits = dtype_bits(to);
  bool is_signed = dtype_is_signed(to);
  double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = is_signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);  // exclusive
  Id below = b_.op(Op::OpFOrdLessThan, bt, {v, float_const(ft, lo)});
  Id above = b_.op(Op::OpFOrdGreaterThanEqual, bt, {v, float_const(ft, hi)});
  Id nan = b_.op(Op::OpIsNan, bt, {v});
  Id out = b_.op(Op::OpLogicalOr, bt, {b_.op(Op::OpLogicalOr, bt, {below, above}), nan});
  Id safe = select(fty, out, float_const(ft, 0.0), v);
  Id ty = value_type(to);
  Id converted = b_.op(is_signed ? Op::OpConvertFToS : Op::OpConvertFToU, ty, {safe});
  uint64_t max_bits = is_signed ? (uint64_t{1} << (bits - 1)) - 1
                                : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
  uint64_t min_bits = is_signed ? ~max_bits : 0;
  Id r = select(ty, above, b_.const_int(bits, is_signed, max_bits), converted);
  r = select(ty, below, b_.const_int(bits, is_signed, min_bits), r);
  return select(ty, nan, int_const(to, 0), r);
}

Id SpvScalar::cast(Id v, DType from, DType to) {
  if (from == to) return v;
  Id bt = b_.type_bool();
  if (to == DType::Bool) {
    if (dtype_is_float(from)) return b_.op(Op::OpFUnordNotEqual, bt, {v, float_const(from, 0)});
    return b_.op(Op::OpINotEqual, bt, {v, int_const(from, 0)});
  }
  Id ty = value_type(to);
  if (from == DType::Bool) return select(ty, v, int_const(to, 1), int_const(to, 0));
  if (dtype_is_float(to)) {
    // As the CPU codegen: to f32/f64 first, then rounded to f16/bf16 precision.
    Id f = v;
    if (!dtype_is_float(from)) {
      f = b_.op(dtype_is_signed(from) ? Op::OpConvertSToF : Op::OpConvertUToF, ty, {v});
    } else if (value_type(from) != ty) {
      f = b_.op(Op::OpFConvert, ty, {v});
    }
    if (to == DType::F16) return round_f16(f);
    if (to == DType::BF16) return round_bf16(f);
    return f;
  }
  if (dtype_is_float(from)) return float_to_int(v, from, to);
  // Integer to integer: extend by the source's signedness, truncate, then reinterpret.
  int fb = dtype_bits(from), tb = dtype_bits(to);
  bool fs = dtype_is_signed(from);
  Id r = v;
  if (fb != tb) r = b_.op(fs ? Op::OpSConvert : Op::OpUConvert, b_.type_int(tb, fs), {v});
  if (fs != dtype_is_signed(to)) r = b_.op(Op::OpBitcast, ty, {r});
  return r;
}

Id SpvScalar::from_storage(DType t, Id stored) {
  switch (t) {
    case DType::Bool:
      return b_.op(Op::OpINotEqual, b_.type_bool(), {stored, b_.const_int(8, false, 0)});
    case DType::F16: {
      Id f = b_.type_float(32);
      Id wide = b_.op(Op::OpUConvert, b_.type_int(32, false), {stored});
      Id pair = b_.ext(GLSLstd450UnpackHalf2x16, b_.type_vector(f, 2), {wide});
      return b_.op(Op::OpCompositeExtract, f, {pair, 0});
    }
    case DType::BF16: {
      Id u = b_.type_int(32, false);
      Id wide = b_.op(Op::OpUConvert, u, {stored});
      Id bits = b_.op(Op::OpShiftLeftLogical, u, {wide, b_.const_int(32, false, 16)});
      return b_.op(Op::OpBitcast, b_.type_float(32), {bits});
    }
    default: return stored;
  }
}

Id SpvScalar::to_storage(DType t, Id value) {
  switch (t) {
    case DType::Bool: {
      Id u8 = b_.type_int(8, false);
      return select(u8, value, b_.const_int(8, false, 1), b_.const_int(8, false, 0));
    }
    case DType::F16: {
      Id f = b_.type_float(32);
      Id pair = b_.op(Op::OpCompositeConstruct, b_.type_vector(f, 2), {value, b_.const_float(32, 0)});
      Id packed = b_.ext(GLSLstd450PackHalf2x16, b_.type_int(32, false), {pair});
      return b_.op(Op::OpUConvert, b_.type_int(16, false), {packed});
    }
    case DType::BF16: return b_.op(Op::OpUConvert, b_.type_int(16, false), {bf16_bits(value)});
    default: return value;
  }
}

}  // namespace plaidml::jit::spirv
