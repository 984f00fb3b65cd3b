// How a kernel's band (loop::find_band) becomes a GPU launch, shared by the OpenCL C and SPIR-V
// generators: the innermost band loop takes dim 0, whose consecutive work-items then touch
// consecutive elements (coalesced on GPUs), the next one dim 1, any further outer band loops
// share dim 2 (decoded with / and %). Workgroups are powers of two within the device's limit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit {

struct LaunchDims {
  std::array<uint32_t, 3> grid = {1, 1, 1};       // workgroups per dimension
  std::array<uint32_t, 3> workgroup = {1, 1, 1};  // threads per workgroup
};

// Launch dim d runs the band loops `loops` (outermost first) over `extent` work-items.
struct BandDim {
  std::vector<const loop::Stmt*> loops;
  int64_t extent = 1;  // saturates at INT64_MAX
};

// band: non-empty, constant-bound loops, outermost first.
std::array<BandDim, 3> map_band(const std::vector<const loop::Stmt*>& band);

// Workgroup and grid sizes for `dims`: at most 256 threads (fewer when the device allows fewer),
// at most 64 along dim 2 (Vulkan's guaranteed minimum). nullopt when a grid dimension does not
// fit uint32: `overflow_dim` then names it.
std::optional<LaunchDims> band_launch(const std::array<BandDim, 3>& dims,
                                      int max_workgroup_size, size_t* overflow_dim);

}  // namespace plaidml::jit
