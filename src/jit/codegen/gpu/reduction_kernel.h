// The cooperative reduction: a register-form kernel whose loads are never reused across output
// points (a row sum, the mean and variance of a layer norm, a softmax's max and sum) runs one
// workgroup per output point, its work-items splitting the reduction loop k (work-item t takes
// k = t, t + T, ...), each into a private accumulator; the partials meet in a workgroup array
// in a tree of barriers, and work-item 0 combines the result with the point's initial value and
// runs the epilogue. Written out as a scheduled GPU kernel (gpu_kernel.h), printed by both
// emitters.
//
// The tiled kernel (tiled_kernel.h) gains nothing on such kernels (nothing staged is used
// twice), and the band mapping runs the whole reduction in one work-item per point: 128 of
// them for a layer norm over 128 tokens. The partials are summed in another order than the
// reference's, within the conformance tolerances (as any GPU reduction; max and min are exact).
#pragma once

#include <optional>

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/codegen/gpu/gpu_target.h"

namespace plaidml::jit::gpu {

// The cooperative reduction of `kernel` when it has the register form with one reduction
// loop of at least kMinCooperativeReduction trips, an aggregation whose partials combine
// (+, *, max, min, and their bool forms), no load that two output points share, and at most
// `max_groups` output points (one workgroup each); else nullopt.
std::optional<GpuKernel> schedule_reduction(const loop::Kernel& kernel, const GpuTarget& target,
                                            int64_t max_groups);

// Below this many trips one work-item per point is as fast.
inline constexpr int64_t kMinCooperativeReduction = 64;

}  // namespace plaidml::jit::gpu
