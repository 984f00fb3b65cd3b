// Helpers shared by the nn group's converters (ops_nn*.cc): dtype lists, casts, index
// expressions for contractions, and the spatial attributes of convolutions and pools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::nn {

// x converted to dtype (Tile's casts: saturating float->int, != 0 for bool).
plaidml::Tensor cast(const plaidml::Tensor& x, plaidml_dtype dtype);

// The plaidml dtype of an ONNX TensorProto elem type used as an attribute (stash_type), or
// UNSUPPORTED.
plaidml_dtype float_dtype_of_onnx(int64_t elem_type, const char* what);

// Fresh index variables for one contraction: prefix0, prefix1, ...
std::vector<plaidml::IndexExpr> indices(plaidml::Builder& b, const std::string& prefix, size_t n);

// Product of input i's dims [from, to) as a size expression (1 when empty).
plaidml::IndexExpr dims_product(NodeContext& cx, size_t i, size_t from, size_t to);

// Input i's dims as size expressions.
std::vector<plaidml::IndexExpr> dims_of(NodeContext& cx, size_t i);

// Input i's dims with the axes from `from` on set to 1 (keepdims reduction shape).
std::vector<plaidml::IndexExpr> reduced_dims(NodeContext& cx, size_t i, size_t from);

// A 1-D per-channel parameter reshaped to [C, 1, ..., 1] (trailing rank - 2 ones) so that it
// broadcasts along axis 1 of a tensor of rank `rank`.
plaidml::Tensor channel_param(NodeContext& cx, size_t i, size_t rank);

// The mean over `axes` (keepdims) of x (op library "mean").
plaidml::Tensor mean_keep(const plaidml::Tensor& x, const std::vector<int64_t>& axes);

// The spatial attributes of Conv, ConvTranspose and the pools, read and checked.
struct Spatial {
  size_t n = 0;  // number of spatial axes
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: lo..., hi...
  std::string auto_pad = "NOTSET";
};

// Reads kernel_shape (or `kernel` when the caller knows it), strides, dilations, pads and
// auto_pad for n spatial axes; INVALID for malformed values.
Spatial read_spatial(NodeContext& cx, size_t n, const std::vector<int64_t>& kernel);

// The window extent (k - 1) * d + 1 of axis a.
inline int64_t extent(const Spatial& s, size_t a) { return (s.kernel[a] - 1) * s.dilations[a] + 1; }

// The converters, by file.
void matmul(NodeContext& cx);  // ops_nn.cc
void gemm(NodeContext& cx);
void softmax(NodeContext& cx);
void log_softmax(NodeContext& cx);
void hardmax(NodeContext& cx);
void conv(NodeContext& cx);  // ops_nn_conv.cc
void conv_transpose(NodeContext& cx);
void max_pool(NodeContext& cx);  // ops_nn_pool.cc
void average_pool(NodeContext& cx);
void lp_pool(NodeContext& cx);
void global_average_pool(NodeContext& cx);
void global_max_pool(NodeContext& cx);
void global_lp_pool(NodeContext& cx);
void batch_norm(NodeContext& cx);  // ops_nn_norm.cc
void instance_norm(NodeContext& cx);
void layer_norm(NodeContext& cx);
void group_norm(NodeContext& cx);
void rms_norm(NodeContext& cx);
void lrn(NodeContext& cx);
void mean_variance_norm(NodeContext& cx);
void einsum(NodeContext& cx);  // ops_nn_einsum.cc
void resize(NodeContext& cx);  // ops_nn_resize.cc
void upsample(NodeContext& cx);

}  // namespace plaidml::onnx_import::nn
