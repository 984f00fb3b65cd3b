// Helpers shared by the quant group's converters (ops_quant*.cc): quantization operators
// (QuantizeLinear, DequantizeLinear, the integer and QLinear matmuls and convolutions) and the
// sampling operators (GridSample, AffineGrid, RoiAlign, DeformConv).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::quant {

// The converter lists of the group's files.
std::vector<ConverterEntry> linear_converters();  // ops_quant.cc
std::vector<ConverterEntry> sample_converters();  // ops_quant_sample.cc

// t converted to dtype (Tile casts: float -> int truncates and saturates, NaN gives 0).
plaidml::Tensor cast(const plaidml::Tensor& t, plaidml_dtype dtype);
// A 0-D constant of exactly dtype.
plaidml::Tensor scalar(NodeContext& cx, plaidml_dtype dtype, double v);
// Fresh index variables prefix0, prefix1, ...
std::vector<plaidml::IndexExpr> indices(plaidml::Builder& b, const std::string& prefix, size_t n);
// Input i's dims as size expressions.
std::vector<plaidml::IndexExpr> dims_of(NodeContext& cx, size_t i);
// x's axes permuted: result axis k is x's axis perm[k].
plaidml::Tensor transpose(const plaidml::Tensor& x, const std::vector<int64_t>& perm);

// The spatial attributes of an integer convolution (ConvInteger, QLinearConv) as op library
// attributes for conv on channels_first data; n = number of spatial axes.
plaidml::Attrs conv_attrs(NodeContext& cx, size_t x_input, size_t w_input);

}  // namespace plaidml::onnx_import::quant
