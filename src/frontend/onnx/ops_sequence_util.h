// Shared helpers of the "sequence" group (ops_sequence*.cc): recurrent networks, scans,
// sequence reversal, signal processing (DFT, windows), image rearrangement (Col2Im, MaxUnpool,
// CenterCropPad), Det and LpNormalization.
#pragma once

#include <cstdint>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::sequence {

// The group's converter lists, one per file.
std::vector<ConverterEntry> rnn_converters();    // ops_sequence_rnn.cc
std::vector<ConverterEntry> dft_converters();    // ops_sequence_dft.cc
std::vector<ConverterEntry> image_converters();  // ops_sequence_image.cc

inline bool is_half(plaidml_dtype d) {
  return d == PLAIDML_DTYPE_FLOAT16 || d == PLAIDML_DTYPE_BFLOAT16;
}

// f16/bf16 values widened to f32 for computing (others unchanged), and back.
inline plaidml::Tensor widen(const plaidml::Tensor& x, plaidml_dtype dtype) {
  return is_half(dtype) ? plaidml::as_float(x, 32) : x;
}
inline plaidml::Tensor narrow(const plaidml::Tensor& x, plaidml_dtype dtype) {
  return is_half(dtype) ? cast_tensor(x, dtype) : x;
}
// The dtype computations run in: f32 for f16/bf16, else dtype.
inline plaidml_dtype compute_dtype(plaidml_dtype d) {
  return is_half(d) ? PLAIDML_DTYPE_FLOAT32 : d;
}

// A scalar constant of dtype.
inline plaidml::Tensor scalar(NodeContext& cx, plaidml_dtype dtype, double v) {
  return cx.constant(HostTensor::from_doubles(dtype, {}, {v}));
}

// Elements [start, end) of axis.
inline plaidml::Tensor slice_axis(const plaidml::Tensor& x, int64_t axis, int64_t start,
                                  int64_t end) {
  plaidml::Attrs attrs;
  attrs.set("starts", std::vector<int64_t>{start})
      .set("ends", std::vector<int64_t>{end})
      .set("axes", std::vector<int64_t>{axis});
  return plaidml::op("slice", {x}, attrs);
}

inline plaidml::Tensor concat(const std::vector<plaidml::Tensor>& parts, int64_t axis) {
  if (parts.size() == 1) return parts[0];
  return plaidml::op("concatenate", parts, plaidml::Attrs().set("axis", axis));
}

// The dims of x as index expressions.
inline std::vector<plaidml::IndexExpr> dims_of(const plaidml::Tensor& x) {
  std::vector<plaidml::IndexExpr> d;
  for (size_t i = 0; i < x.rank(); ++i) d.push_back(x.dim(i));
  return d;
}

// Fresh index variables named prefix0, prefix1, ...
inline std::vector<plaidml::IndexExpr> indices(NodeContext& cx, const char* prefix, size_t n) {
  std::vector<plaidml::IndexExpr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(cx.builder().index(prefix + std::to_string(i)));
  return v;
}

}  // namespace plaidml::onnx_import::sequence
