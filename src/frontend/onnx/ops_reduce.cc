// ONNX operators: reduce group. Reduce* (here), ArgMax/ArgMin/TopK (ops_reduce_arg.cc).
//
// Every Reduce* op is pre(x) -> aggregate over axes -> post(r). Over no axes (a scalar, or
// noop_with_empty_axes with empty axes) the aggregation is the identity and pre/post still apply
// elementwise, as the onnx reference and the clarified spec (onnx PR 7137) say: ReduceSumSquare
// squares, ReduceLogSum takes the log. An aggregation over zero elements gives its identity
// (Tile's empty contraction): 0 for sums (so L1/L2/SumSquare give 0, LogSum/LogSumExp -inf),
// 1 for prod, -inf / the lowest integer for max, +inf / the highest for min, as ONNX asks.
#include "ops_reduce_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plaidml::onnx_import {
namespace reduce_util {

std::vector<int64_t> normalize_axes(const NodeContext& cx, const std::vector<int64_t>& raw,
                                    size_t rank, const char* what) {
  std::vector<int64_t> axes;
  for (int64_t a : raw) axes.push_back(static_cast<int64_t>(cx.normalize_axis(a, rank, what)));
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    invalid("{} names an axis twice", what);
  }
  return axes;
}

}  // namespace reduce_util

namespace {

using namespace reduce_util;  // NOLINT

enum class Kind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The axes to reduce. Before version `input_since` they are the `axes` attribute (absent or
// empty: all); from it, the optional `axes` input, which must be known at import (absent or
// empty: all, or none with noop_with_empty_axes).
std::vector<int64_t> reduce_axes(NodeContext& cx, int input_since) {
  size_t rank = cx.rank(0);
  std::vector<int64_t> raw;
  bool noop = false;
  if (cx.version() >= input_since) {
    noop = cx.attr_int("noop_with_empty_axes", 0) != 0;
    if (cx.has_input(1)) raw = cx.required_ints(1, "axes");
  } else {
    raw = cx.attr_ints("axes");
  }
  if (raw.empty()) {
    if (noop) return {};
    for (size_t a = 0; a < rank; ++a) raw.push_back(static_cast<int64_t>(a));
  }
  return normalize_axes(cx, raw, rank, "axes");
}

// Integer dtypes of 64 bits with the same signedness (numpy's accumulator for np.sum).
plaidml::Tensor widen_int(const plaidml::Tensor& x, plaidml_dtype dtype) {
  return dtype_is_unsigned_int(dtype) ? plaidml::as_uint(x, 64) : plaidml::as_int(x, 64);
}

plaidml::Tensor narrow_int(const plaidml::Tensor& x, plaidml_dtype dtype) {
  int bits = static_cast<int>(dtype_bytes(dtype) * 8);
  return dtype_is_unsigned_int(dtype) ? plaidml::as_uint(x, bits) : plaidml::as_int(x, bits);
}

// ReduceL2 on integers, as the reference: squares wrap in the dtype, the sum is taken in 64
// bits, sqrt in f64, and the result truncated back to the dtype.
plaidml::Tensor int_l2(const plaidml::Tensor& x, plaidml_dtype dtype,
                       const std::vector<int64_t>& axes, bool keepdims) {
  plaidml::Tensor s = reduce("sum", widen_int(x * x, dtype), axes, keepdims);
  return narrow_int(plaidml::sqrt(plaidml::as_float(s, 64)), dtype);
}

// log(sum(exp(x - m))) + m with m the slice's max where it is finite, else 0: the same as the
// plain formula wherever that does not overflow (all -inf gives -inf, a +inf gives +inf).
// Over no axes it is x itself (log(exp(x)) without the overflow).
plaidml::Tensor log_sum_exp(const plaidml::Tensor& x, const std::vector<int64_t>& axes,
                            bool keepdims) {
  if (axes.empty()) return x;
  plaidml::Tensor m = reduce("max", x, axes, true);
  plaidml::Tensor finite =
      plaidml::abs(m) < x.constant(std::numeric_limits<double>::infinity());
  plaidml::Tensor shift = plaidml::select(finite, m, x.constant(0.0));
  plaidml::Tensor s = reduce("sum", plaidml::exp(x - shift), axes, true);
  plaidml::Tensor r = plaidml::log(s) + shift;
  if (keepdims) return r;
  return plaidml::op("squeeze", {r}, plaidml::Attrs().set("axes", axes));
}

template <Kind K>
plaidml::Tensor compute(const plaidml::Tensor& x, plaidml_dtype dtype,
                        const std::vector<int64_t>& axes, bool keepdims) {
  bool is_float = dtype_is_float(dtype);
  switch (K) {
    case Kind::kSum: return reduce("sum", x, axes, keepdims);
    case Kind::kMean: return reduce("mean", x, axes, keepdims);
    case Kind::kProd: return reduce("prod", x, axes, keepdims);
    case Kind::kMax:
    case Kind::kMin: {
      const char* op = K == Kind::kMax ? "max" : "min";
      if (dtype == PLAIDML_DTYPE_BOOL) {  // False < True: as u8 0/1, back to bool
        return plaidml::as_bool(reduce(op, plaidml::as_uint(x, 8), axes, keepdims));
      }
      return nan_extreme(op, x, dtype, axes, keepdims);
    }
    case Kind::kL1: return reduce("sum", plaidml::abs(x), axes, keepdims);
    case Kind::kL2:
      if (!is_float) return int_l2(x, dtype, axes, keepdims);
      return plaidml::sqrt(reduce("sum", x * x, axes, keepdims));
    case Kind::kLogSum: return plaidml::log(reduce("sum", x, axes, keepdims));
    case Kind::kLogSumExp: return log_sum_exp(x, axes, keepdims);
    case Kind::kSumSquare: return reduce("sum", x * x, axes, keepdims);
  }
  return x;
}

template <Kind K, int kInputSince>
void reduce_op(NodeContext& cx) {
  if (cx.version() >= kInputSince) {
    cx.check_attrs({"keepdims", "noop_with_empty_axes"});
  } else {
    cx.check_attrs({"axes", "keepdims"});
  }
  if (K == Kind::kLogSum || K == Kind::kLogSumExp) {
    // Integer inputs (allowed before version 28) have no defined result: the reference refuses.
    cx.require_dtype(0, kFloats);
  } else if (K == Kind::kMax || K == Kind::kMin) {
    cx.require_dtype(0, with_bool(kNumeric));
  } else {
    cx.require_dtype(0, kNumeric);
  }
  plaidml_dtype dtype = cx.dtype(0);
  if (dtype == PLAIDML_DTYPE_BOOL && cx.version() < 20) {
    unsupported("bool inputs need version 20 of {} (opset 20)", cx.op_type());
  }
  bool keepdims = cx.attr_int("keepdims", 1) != 0;
  std::vector<int64_t> axes = reduce_axes(cx, kInputSince);
  plaidml::Tensor x = cx.tensor(0);
  bool empty = false;  // a known size of 0: no elements
  for (size_t d = 0; d < cx.rank(0); ++d) empty = empty || cx.size(0, d) == 0;
  if (empty && is_half(dtype)) {  // see is_half
    plaidml::Tensor r = compute<K>(plaidml::as_float(x, 32), PLAIDML_DTYPE_FLOAT32, axes,
                                   keepdims);
    return cx.set_output(0, to_half(r, dtype), dtype);
  }
  cx.set_output(0, compute<K>(x, dtype, axes, keepdims), dtype);
}

}  // namespace

std::vector<ConverterEntry> reduce_converters() {
  std::vector<ConverterEntry> list = {
      {"ReduceSum", {1, 11, 13}, reduce_op<Kind::kSum, 13>},
      {"ReduceMean", {1, 11, 13, 18}, reduce_op<Kind::kMean, 18>},
      {"ReduceMax", {1, 11, 12, 13, 18, 20}, reduce_op<Kind::kMax, 18>},
      {"ReduceMin", {1, 11, 12, 13, 18, 20}, reduce_op<Kind::kMin, 18>},
      {"ReduceProd", {1, 11, 13, 18}, reduce_op<Kind::kProd, 18>},
      {"ReduceL1", {1, 11, 13, 18}, reduce_op<Kind::kL1, 18>},
      {"ReduceL2", {1, 11, 13, 18}, reduce_op<Kind::kL2, 18>},
      {"ReduceLogSum", {1, 11, 13, 18, 28}, reduce_op<Kind::kLogSum, 18>},
      {"ReduceLogSumExp", {1, 11, 13, 18, 28}, reduce_op<Kind::kLogSumExp, 18>},
      {"ReduceSumSquare", {1, 11, 13, 18}, reduce_op<Kind::kSumSquare, 18>},
  };
  for (auto& e : reduce_util::arg_converters()) list.push_back(std::move(e));
  return list;
}

}  // namespace plaidml::onnx_import
