// The kernel emitter of the SPIR-V generator (spirv_codegen.h): one GLCompute entry point per
// loop-IR kernel, band-mapped as the OpenCL simple kernels are (cl_kernel.h).
#pragma once

#include <array>
#include <cstdint>

#include "core/base/status.h"
#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/codegen/spirv/spv_emitter.h"

namespace plaidml::jit::spirv {

// Emits `kernel` as a function and its entry point (LocalSize included). The kernel's band (the
// parallel loop and the independent loops perfectly nested in it) maps to invocations:
// innermost band loop -> GlobalInvocationId.x, the next -> .y, the rest flattened into .z;
// invocations past a loop's end skip the band's body. A kernel without a parallel loop runs as
// one invocation. `invocation_id`: the GlobalInvocationId Input variable (a uvec3).
Expected<LaunchDims> emit_kernel(const loop::Kernel& kernel, const SpirvTarget& target,
                                 SpvEmitter& emitter, SpvBuilder& b, Id invocation_id);

}  // namespace plaidml::jit::spirv
