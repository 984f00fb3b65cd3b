#include "jit/lower/panel_packing.h"

#include <algorithm>
#include <cstring>

namespace plaidml::jit {

int64_t packed_elements(const PanelPacking& p) {
  int64_t panels = (p.cols + p.width - 1) / p.width;
  return panels * p.rows * p.width;
}

std::vector<uint8_t> pack_panels(const void* data, int64_t elem_bytes, const PanelPacking& p) {
  std::vector<uint8_t> out(static_cast<size_t>(packed_elements(p) * elem_bytes), 0);
  const auto* src = static_cast<const uint8_t*>(data);
  uint8_t* dst = out.data();
  for (int64_t c0 = 0; c0 < p.cols; c0 += p.width) {
    auto bytes = static_cast<size_t>(std::min(p.width, p.cols - c0) * elem_bytes);
    for (int64_t r = 0; r < p.rows; ++r) {
      std::memcpy(dst, src + (r * p.cols + c0) * elem_bytes, bytes);
      dst += p.width * elem_bytes;
    }
  }
  return out;
}

}  // namespace plaidml::jit
