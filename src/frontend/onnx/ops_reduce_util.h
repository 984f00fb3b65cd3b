// Helpers shared by the reduce group's files (ops_reduce*.cc): dtype lists, reductions over a
// set of axes through the op library, NaN-aware max/min, and small boolean algebra on tensors.
#pragma once

#include <string>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::reduce_util {

inline const std::vector<plaidml_dtype> kFloats = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16,
                                                   PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64};
// Every integer and float dtype (no bool).
inline const std::vector<plaidml_dtype> kNumeric = {
    PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16, PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64,
    PLAIDML_DTYPE_INT8,    PLAIDML_DTYPE_INT16,    PLAIDML_DTYPE_INT32,   PLAIDML_DTYPE_INT64,
    PLAIDML_DTYPE_UINT8,   PLAIDML_DTYPE_UINT16,   PLAIDML_DTYPE_UINT32,  PLAIDML_DTYPE_UINT64};

inline std::vector<plaidml_dtype> with_bool(std::vector<plaidml_dtype> list) {
  list.push_back(PLAIDML_DTYPE_BOOL);
  return list;
}

// The op library's reduction `op` ("sum", "max", ...) over `axes` (none: x itself, unchanged).
inline plaidml::Tensor reduce(const std::string& op, const plaidml::Tensor& x,
                              const std::vector<int64_t>& axes, bool keepdims) {
  if (axes.empty()) return x;
  return plaidml::op(op, {x}, plaidml::Attrs().set("axes", axes).set("keepdims",
                                                                      keepdims ? 1 : 0));
}

// Elementwise logic on bool tensors, through select (bitwise ops are for integers).
inline plaidml::Tensor logical_or(const plaidml::Tensor& a, const plaidml::Tensor& b) {
  return plaidml::select(a, a, b);
}
inline plaidml::Tensor logical_and(const plaidml::Tensor& a, const plaidml::Tensor& b) {
  return plaidml::select(a, b, a);
}
inline plaidml::Tensor logical_not(const plaidml::Tensor& a) {
  return plaidml::eq(a, a.constant(int64_t{0}));
}
inline plaidml::Tensor is_nan(const plaidml::Tensor& x) { return plaidml::ne(x, x); }

// max/min over axes that propagates NaN like numpy's maximum.reduce (the Tile aggregations
// ignore NaN operands): where a reduced slice holds a NaN, the NaN sum of that slice replaces
// the result. Integer and bool inputs use the plain aggregation.
inline plaidml::Tensor nan_extreme(const std::string& op, const plaidml::Tensor& x,
                                   plaidml_dtype dtype, const std::vector<int64_t>& axes,
                                   bool keepdims) {
  plaidml::Tensor m = reduce(op, x, axes, keepdims);
  if (!dtype_is_float(dtype) || axes.empty()) return m;
  plaidml::Tensor nans = reduce("sum", plaidml::select(is_nan(x), x, x.constant(0.0)), axes,
                                keepdims);
  return plaidml::select(is_nan(nans), nans, m);
}

// f16 and bf16 contractions whose output has elements no point reaches (an empty input, an
// exclusive scan's first element, an empty output) fail to compile: a core bug, whose init
// kernel stores the f32 accumulator into the f16 output. The workaround computes in f32 (which
// the core uses to accumulate f16/bf16 anyway) and rounds once at the end.
inline bool is_half(plaidml_dtype dtype) {
  return dtype == PLAIDML_DTYPE_FLOAT16 || dtype == PLAIDML_DTYPE_BFLOAT16;
}
inline plaidml::Tensor to_half(const plaidml::Tensor& x, plaidml_dtype dtype) {
  return cast_tensor(x, dtype);
}

// The axes of a reduction, sorted, normalised and without duplicates (INVALID if repeated).
std::vector<int64_t> normalize_axes(const NodeContext& cx, const std::vector<int64_t>& raw,
                                    size_t rank, const char* what);

// Converters defined in ops_reduce_arg.cc (ArgMax, ArgMin, TopK), listed by reduce_converters.
std::vector<ConverterEntry> arg_converters();
// Converters defined in ops_misc_loss.cc, listed by misc_converters.
std::vector<ConverterEntry> loss_converters();

}  // namespace plaidml::onnx_import::reduce_util
