// The kernel emitters of the SPIR-V generator (spirv_codegen.h): one GLCompute entry point per
// loop-IR kernel, tiled or band-mapped as the OpenCL kernels are (opencl/cl_kernel.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/base/status.h"
#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/codegen/spirv/spv_emitter.h"
#include "jit/codegen/spirv/spv_entry.h"
#include "jit/codegen/spirv/spv_workgroup.h"

namespace plaidml::jit::spirv {

// Emits `kernel` as a function and its entry point (LocalSize included). The kernel's band (the
// parallel loop and the independent loops perfectly nested in it) maps to invocations:
// innermost band loop -> GlobalInvocationId.x, the next -> .y, the rest flattened into .z;
// invocations past a loop's end skip the band's body. A kernel without a parallel loop runs as
// one invocation.
Expected<LaunchDims> emit_kernel(const loop::Kernel& kernel, const SpirvTarget& target,
                                 SpvEmitter& emitter, SpvBuilder& b, Builtins& builtins);

// Tiled contraction kernel (PlaidML v0's scheme, planned by jit/codegen/gpu/tiled_layout.h as
// for OpenCL) when `kernel` has the register form (lower_contraction.cc):
//   band (independent output loops) { declare acc = init; [ifs/fors of the reduction] {
//     acc = agg(acc, f(loads)) }; store(out, index, g(acc)) }
// Output tiles go to workgroups, a register block to each invocation, and the innermost
// reduction loop is staged through the module's Workgroup arrays (`workgroup`) between
// barriers. Returns nullopt (and emits nothing) when the kernel does not have that form or
// tiling does not pay; the caller then uses emit_kernel.
Expected<std::optional<LaunchDims>> emit_tiled_kernel(const loop::Kernel& kernel,
                                                      const SpirvTarget& target,
                                                      SpvEmitter& emitter, SpvBuilder& b,
                                                      Builtins& builtins,
                                                      WorkgroupArena& workgroup);

}  // namespace plaidml::jit::spirv
