// Scalar values in OpenCL C: types, constants, conversions and every op of the table, with the
// value conventions of loop_ir.h (the OpenCL twin of codegen/llvm/llvm_scalar.cc). Operands
// arrive as printed C expressions that already have the value type of their dtype (bool values
// are int 0/1); results are parenthesized and have the value type of the result dtype, so they
// nest without C's integer promotions changing anything. Ops that would repeat an operand go
// through small helper functions (one definition each in `helpers`, printed in the preamble).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/ops.h"
#include "core/types/dtype.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::opencl {

// Helper function name -> its definition.
using ClHelpers = std::map<std::string, std::string>;

// The C type values of dtype are computed in: bool, char..ulong, float (f16, bf16, f32), double.
std::string cl_value_type(DType t);
// The C type of dtype's elements in memory: uchar for bool, half for f16, ushort for bf16.
std::string cl_storage_type(DType t);

// A float constant exactly, as a C literal of its value type (hex float, INFINITY, NAN).
// `value` is rounded to the dtype's precision first, as every value of that dtype is.
std::string cl_float_literal(double value, DType t);
// An integer or bool constant of dtype t (u64 as its bit pattern).
std::string cl_int_literal(int64_t value, DType t);
std::string cl_const(const loop::Expr& e);

// `value` (a value of dtype `from`) converted to dtype `to` as loop_ir.h says.
std::string cl_cast(const std::string& value, DType from, DType to, ClHelpers& helpers);

// `op` applied to operands of dtype `operand` (Select: the dtype of its second and third
// operands). kInternal for ops the loop IR never holds (structural ops, table casts).
Expected<std::string> cl_op(ir::OpKind op, DType operand, const std::vector<std::string>& args,
                            ClHelpers& helpers);

// Memory <-> value conversions of one element `ptr[index]`.
std::string cl_load(DType t, const std::string& ptr, const std::string& index);
std::string cl_store(DType t, const std::string& ptr, const std::string& index,
                     const std::string& value, ClHelpers& helpers);

}  // namespace plaidml::jit::opencl
