// Helpers shared by the attention group's converters (ops_attention*.cc): Attention,
// RotaryEmbedding, SwiGLU.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::attention {

// A scalar constant of a float dtype (the value rounded to it once, from double).
inline plaidml::Tensor scalar(NodeContext& cx, plaidml_dtype dtype, double v) {
  return cx.constant(HostTensor::from_doubles(dtype, {}, {v}));
}

// x converted to a float dtype.
inline plaidml::Tensor to_float(const plaidml::Tensor& x, plaidml_dtype dtype) {
  if (!dtype_is_float(dtype)) unsupported("no float cast to {}", dtype_text(dtype));
  return cast_tensor(x, dtype);
}

// A size expression as a scalar integer tensor (evaluated when the program runs).
inline plaidml::Tensor size_value(const plaidml::IndexExpr& e) {
  plaidml_value v;
  plaidml::detail::check(plaidml_builder_dim_constant(e.builder(), e.get(), &v));
  return plaidml::Tensor(e.builder(), v);
}

// Input i's dims as size expressions.
inline std::vector<plaidml::IndexExpr> dims_of(NodeContext& cx, size_t i) {
  std::vector<plaidml::IndexExpr> out;
  for (size_t a = 0; a < cx.rank(i); ++a) out.push_back(cx.dim(i, a));
  return out;
}

// The converters, by file.
void attention_op(NodeContext& cx);      // ops_attention.cc
void rotary_embedding(NodeContext& cx);  // ops_attention_rope.cc
void swiglu(NodeContext& cx);

}  // namespace plaidml::onnx_import::attention
