// The tiled contraction kernel (PlaidML v0's scheme) written out as a scheduled GPU kernel
// (gpu_kernel.h), once for every GPU emitter:
//   - an output tile of BM x BN points per workgroup, TX x TY work-items with an RM x RN
//     register block each, in groups of G consecutive points (register_group: 4 where the
//     block's side is a multiple of 4): work-item (tx, ty) owns n = n0 + G*tx + (rn % G) +
//     (rn / G)*G*TX, and m alike (coalesced global access; a group is one vector read of the
//     workgroup array where the compiler sees it);
//   - the innermost reduction loop k walked in chunks of BK whose staged loads all work-items
//     copy into workgroup arrays ([BK][side + pad]: padded_row's element or group of padding
//     against bank conflicts), between barriers (stage, barrier, compute, barrier); where the
//     registers allow, the next chunk's elements are read into registers while this chunk is
//     computed (deposit, barrier, fetch the next, compute, barrier);
//   - per k step, each tile's operands read into registers once, then the RM x RN points use
//     them; the compute loop is unrolled when its trip count is constant.
// Every statement of the lowered kernel is kept as written, with its variables replaced by the
// point's expressions, so any aggregation, combination, guard and epilogue keeps its exact
// semantics. Barriers sit only in workgroup-uniform control flow: the serial reduction loops and
// the chunk loop have trip counts every work-item agrees on (a failing uniform guard sets the
// chunk loop's trip count to zero instead of skipping it: PoCL's CPU driver mishandles barriers
// under an `if`, even a uniform one), and every per-point condition is nested inside the
// compute loop, never around a barrier.
#pragma once

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/codegen/gpu/tiled_layout.h"

namespace plaidml::jit::gpu {

// `kernel` has the register form `plan.form` refers to (plan_tiled); `tiles` fit the device and
// `launch` is tiled_launch(plan, tiles).
GpuKernel build_tiled_kernel(const loop::Kernel& kernel, const TiledPlan& plan,
                             const TileChoice& tiles, const LaunchDims& launch);

}  // namespace plaidml::jit::gpu
