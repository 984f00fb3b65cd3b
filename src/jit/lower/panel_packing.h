// The bytes of a constant repacked into column panels (PanelPacking, jit/lower/lower.h), as the
// CPU device holds weights whose register tiles read them panel by panel
// (jit/passes/weight_packing.h). Done once per constant and device (jit/constant_buffers.h).
#pragma once

#include <cstdint>
#include <vector>

#include "jit/lower/lower.h"

namespace plaidml::jit {

// Elements of the packed buffer: panels * rows * width.
int64_t packed_elements(const PanelPacking& packing);

// `data` (packing.rows x packing.cols elements of elem_bytes each, row-major) in panels.
std::vector<uint8_t> pack_panels(const void* data, int64_t elem_bytes,
                                 const PanelPacking& packing);

}  // namespace plaidml::jit
