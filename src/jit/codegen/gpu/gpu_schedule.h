// The GPU schedule of a lowered program, decided once for every GPU emitter: per kernel,
// either the tiled contraction (its plan, tile sizes and launch) or the band mapping (one
// work-item per band point, band_launch.h). The OpenCL C and SPIR-V emitters print what this
// decides and decide nothing themselves, so a change of schedule reaches both devices at once
// (docs/design.md, "GPU code generation").
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/codegen/gpu/gpu_target.h"
#include "jit/codegen/gpu/matrix_kernel.h"
#include "jit/codegen/gpu/reduction_kernel.h"
#include "jit/codegen/gpu/tiled_kernel.h"
#include "jit/codegen/gpu/tiled_layout.h"
#include "jit/lower/lower.h"

namespace plaidml::jit::gpu {

// What a device's dispatch can address, beside GpuTarget's limits.
struct DispatchLimits {
  // Workgroups per grid dimension: Vulkan guarantees 65535 (maxComputeWorkGroupCount), an
  // OpenCL NDRange is bounded by the launch's 32-bit grid.
  int64_t max_groups = std::numeric_limits<int32_t>::max();
};

// Tile choices made elsewhere (the measured search, jit/tile_measure.h), by kernel name: a
// kernel named here takes its hint instead of the cost model's choice where the hint fits the
// device and the dispatch; any other kernel keeps the model's.
struct TileHints {
  std::map<std::string, TileChoice> by_kernel;
};

// The tiled schedule of one kernel (its kernel: build_tiled_kernel).
struct TiledSchedule {
  TiledPlan plan;
  TileChoice tiles;
  LaunchDims launch;
  // The kernel the plan points into, where it is not the lowered one: the lowered kernel with
  // its short reduction loops merged (reduction_merge.h).
  std::shared_ptr<const loop::Kernel> merged;
};

// Per kernel of a program, what the emitters print: a scheduled kernel (tiled, a cooperative
// reduction, reduction_kernel.h, or a cooperative-matrix one, matrix_kernel.h), or nullopt for
// the band mapping.
struct GpuSchedule {
  std::vector<std::optional<GpuKernel>> kernels;
  // The tiled schedule of each tiled kernel (nullopt for the others), for inspection.
  std::vector<std::optional<TiledSchedule>> tiled;
  // The scheduled kernels, in program order (for IndexRanges).
  std::vector<const GpuKernel*> scheduled_kernels() const {
    std::vector<const GpuKernel*> out;
    for (const auto& k : kernels) {
      if (k) out.push_back(&*k);
    }
    return out;
  }
};

// The tiled schedule when `kernel` has the register form, a load can be staged, tiling pays
// (tile_search.h) and the launch fits `dispatch` (tile origins and k positions stay below 2^31,
// as the emitters' 32-bit workgroup arithmetic needs); else nullopt. `hint`, when it fits,
// replaces the model's tiles. Short reduction loops are merged first (reduction_merge.h) where
// the merged kernel's point guards are zero-filled or absent.
std::optional<TiledSchedule> schedule_tiled(const loop::Kernel& kernel, const GpuTarget& target,
                                            const DispatchLimits& dispatch,
                                            const TileChoice* hint = nullptr);

// The tile choices a measured search may time for `kernel` (tile_candidates, each one that
// schedule_tiled would take as a hint), the model's first; empty when the kernel is not tiled
// (a matrix, cooperative-reduction or band-mapped kernel).
std::vector<TileChoice> tiled_candidates(const loop::Kernel& kernel, const GpuTarget& target,
                                         const DispatchLimits& dispatch, size_t max);

GpuSchedule schedule_program(const LoweredProgram& lowered, const GpuTarget& target,
                             const DispatchLimits& dispatch, const TileHints& hints = {});

}  // namespace plaidml::jit::gpu
