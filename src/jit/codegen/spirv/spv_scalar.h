// Scalar values in SPIR-V: types, constants, conversions and every op of the table, with the
// value conventions of loop_ir.h (the SPIR-V twin of codegen/opencl/cl_scalar.h and
// codegen/llvm/llvm_scalar.cc). Every instruction goes into the builder's current block; no op
// here opens blocks, so callers may use them anywhere.
//
// Value types: bool is OpTypeBool; integers their own width and signedness; f16, bf16 and f32
// are f32 (rounded by casts to f16/bf16 and on store); f64 is f64.
// Storage types (a slot's array element): bool is u8 (0/1); f16 and bf16 are u16 bit patterns,
// converted with GLSL.std.450 UnpackHalf2x16/PackHalf2x16 and shifts, so no Float16 arithmetic
// is needed; the rest as their value type.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/ir/ops.h"
#include "core/types/dtype.h"
#include "jit/codegen/spirv/spirv_builder.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::spirv {

class SpvScalar {
 public:
  explicit SpvScalar(SpvBuilder& b) : b_(b) {}

  Id value_type(DType t);
  Id storage_type(DType t);
  static int storage_bytes(DType t);

  Id constant(const loop::Expr& e);
  // The constant `v` of dtype t's value type (floats: v converted and rounded to t).
  Id int_const(DType t, int64_t v);
  Id float_const(DType t, double v);

  // `v` (a value of dtype `from`) converted to dtype `to` as loop_ir.h says.
  Id cast(Id v, DType from, DType to);

  // `op` on operands of dtype `operand` (Select: the dtype of its 2nd and 3rd operands).
  // kInternal for ops the loop IR never holds.
  Expected<Id> op(ir::OpKind op, DType operand, const std::vector<Id>& args);

  // A loaded storage element to its value, and a value to the element to store.
  Id from_storage(DType t, Id stored);
  Id to_storage(DType t, Id value);

  SpvBuilder& builder() { return b_; }

 private:
  Id float_to_int(Id v, DType from, DType to);
  Id round_f16(Id f32);
  Id bf16_bits(Id f32);  // u32 holding the rounded bf16 bit pattern
  Id round_bf16(Id f32);

  Expected<Id> int_op(ir::OpKind op, DType t, const std::vector<Id>& v);
  Expected<Id> bool_op(ir::OpKind op, const std::vector<Id>& v);
  Expected<Id> float_op(ir::OpKind op, DType t, const std::vector<Id>& v);
  Id int_div(DType t, Id a, Id b, bool remainder);
  Id shift(DType t, Id a, Id s, bool left);
  Id select(Id type, Id cond, Id a, Id b);
  Id compare(ir::OpKind op, DType t, Id a, Id b);

  // Float math (spv_math.cc); f64 functions without a 64-bit GLSL.std.450 form run in f32.
  Expected<Id> math(ir::OpKind op, DType t, const std::vector<Id>& v);
  Id glsl(GLSLstd450 inst, DType t, const std::vector<Id>& v);
  Id glsl_f32_only(GLSLstd450 inst, DType t, const std::vector<Id>& v);
  Id erf_f32(Id x);
  Id round_half_away(DType t, Id x);
  Id pow_c(DType t, Id x, Id y);
  Id fmod_c(DType t, Id x, Id y);
  Id div_rn(DType t, Id a, Id b);

  SpvBuilder& b_;
};

}  // namespace plaidml::jit::spirv
