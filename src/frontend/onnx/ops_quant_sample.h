// The quant group's sampling helpers (ops_quant_sample.cc): reading an [N, C, spatial...] input
// at run-time positions, with onnx's boundary rules.
#pragma once

#include <optional>
#include <vector>

#include "ops_quant_util.h"

namespace plaidml::onnx_import::quant {

enum class Padding { kZeros, kBorder, kReflection };

// One axis's integer position (held in a float tensor) and, for zeros padding, whether it is
// inside the axis.
struct Tap {
  plaidml::Tensor index;
  std::optional<plaidml::Tensor> valid;
};

// Input x_input ([N, C, D...], spatial sizes known) as rows [N * prod(D), C] in float type f,
// read with gathers.
class Sampler {
 public:
  Sampler(NodeContext& cx, size_t x_input, plaidml_dtype f);

  int64_t size(size_t d) const { return sizes_[d]; }
  plaidml::Tensor c(double v) const;  // a 0-D constant of type f
  plaidml::Tensor clamp(const plaidml::Tensor& x, double lo, double hi) const;
  plaidml::Tensor truncate(const plaidml::Tensor& x) const;  // toward zero
  // onnx's _gs_reflect on axis d (borders -0.5 / size - 0.5, or 0 / size - 1 with align).
  plaidml::Tensor reflect(const plaidml::Tensor& v, size_t d, bool align) const;
  // The row to read for integer position i on axis d under the padding mode.
  Tap fetch_index(const plaidml::Tensor& i, size_t d, Padding pad, bool align) const;
  // X[batch, :, taps...] as [batch's dims..., C]; 0 where a tap is outside (zeros padding).
  plaidml::Tensor gather(const plaidml::Tensor& batch, const std::vector<Tap>& taps) const;
  // t with a trailing axis of size 1 (to broadcast against the channel axis).
  plaidml::Tensor add_axis(const plaidml::Tensor& t) const;

 private:
  NodeContext& cx_;
  plaidml_dtype f_;
  std::vector<int64_t> sizes_;
  std::optional<plaidml::Tensor> rows_;
};

std::vector<ConverterEntry> roi_converters();  // ops_quant_roi.cc

}  // namespace plaidml::onnx_import::quant
