// Helpers shared by the elementwise group's converters (ops_elementwise*.cc): dtype lists, typed
// constants, casts, NaN-exact compositions, and folding of ops whose inputs are known at import.
#pragma once

#include <cstdint>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::elementwise {

// The converter lists of the group's files.
std::vector<ConverterEntry> math_converters();   // ops_elementwise_math.cc
std::vector<ConverterEntry> act_converters();    // ops_elementwise_act.cc
std::vector<ConverterEntry> logic_converters();  // ops_elementwise_logic.cc

// The dtype sets (float_types, numeric_types, ...) are host_tensor.h's.
bool is_float(plaidml_dtype d);

// Input i's dtype must equal input j's (INVALID otherwise: ONNX asks for one type T).
void require_same_dtype(NodeContext& cx, size_t i, size_t j);

// --- program values ---
// A 0-D constant of exactly dtype (a strong operand: it never changes the other's dtype).
plaidml::Tensor cst(NodeContext& cx, plaidml_dtype dtype, double v);
plaidml::Tensor cst_int(NodeContext& cx, plaidml_dtype dtype, int64_t v);
// t converted to dtype (Tile casts: float->int truncates, anything->bool is x != 0).
plaidml::Tensor cast_to(const plaidml::Tensor& t, plaidml_dtype dtype);
// Logical operations on bool tensors.
plaidml::Tensor logical_and(const plaidml::Tensor& a, const plaidml::Tensor& b);
plaidml::Tensor logical_or(const plaidml::Tensor& a, const plaidml::Tensor& b);
plaidml::Tensor logical_not(const plaidml::Tensor& a);
plaidml::Tensor is_nan(const plaidml::Tensor& x);
// numpy's maximum/minimum: a NaN operand gives NaN (Tile's max/min ignore NaN operands).
plaidml::Tensor nan_max(const plaidml::Tensor& a, const plaidml::Tensor& b, plaidml_dtype dtype);
plaidml::Tensor nan_min(const plaidml::Tensor& a, const plaidml::Tensor& b, plaidml_dtype dtype);
// numpy's clip(x, lo, hi): NaN x stays NaN; lo > hi gives hi.
plaidml::Tensor clip(const plaidml::Tensor& x, const plaidml::Tensor& lo, const plaidml::Tensor& hi);
// exp(x) - 1 and log(1 + x) without cancellation near 0 (Kahan's forms), in x's float dtype.
plaidml::Tensor expm1(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype);
plaidml::Tensor log1p(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype);
// log(1 + exp(x)) without overflow (numpy's logaddexp(0, x)).
plaidml::Tensor softplus(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype);

// --- folding at import (ops_elementwise_fold.cc) ---
// Ops that fold when every input is known at import (a small constant, or sizes from Shape).
enum class FoldOp {
  kAdd, kSub, kMul, kDiv, kMod, kFmod, kMax, kMin,                // arithmetic (binary)
  kEqual, kLess, kLessEqual, kGreater, kGreaterEqual,              // comparisons (bool)
  kAnd, kOr, kXor,                                                 // bool logic
  kNeg, kAbs, kNot, kSign, kFloor, kCeil, kRound, kSqrt, kReciprocal,  // unary
  kWhere,                                                          // cond, a, b
  kCast,                                                           // to `dtype`
};
// Computes op on inputs 0..n-1 when all are known and small, setting output 0 (a HostTensor, or
// sizes when symbolic) and returning true; false when the op must be built into the program.
// For kCast, `dtype` is the target; for variadic ops (Sum, Max, Min) the op is applied left to
// right over every input.
bool try_fold(NodeContext& cx, FoldOp op, plaidml_dtype dtype = PLAIDML_DTYPE_INVALID);

}  // namespace plaidml::onnx_import::elementwise
