// The kernel emitters of the SPIR-V generator (spirv_codegen.h): one GLCompute entry point per
// loop-IR kernel, scheduled or band-mapped as the OpenCL kernels are (opencl/cl_kernel.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/base/status.h"
#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/codegen/spirv/spv_emitter.h"
#include "jit/codegen/spirv/spv_entry.h"

namespace plaidml::jit::spirv {

// Emits `kernel` as a function and its entry point (LocalSize included). The kernel's band (the
// parallel loop and the independent loops perfectly nested in it) maps to invocations:
// innermost band loop -> GlobalInvocationId.x, the next -> .y, the rest flattened into .z;
// invocations past a loop's end skip the band's body. A kernel without a parallel loop runs as
// one invocation.
Expected<LaunchDims> emit_kernel(const loop::Kernel& kernel, const SpirvTarget& target,
                                 SpvEmitter& emitter, SpvBuilder& b, Builtins& builtins);

// A scheduled GPU kernel (jit/codegen/gpu/gpu_kernel.h, the tiled contraction of
// gpu_schedule.h), emitted as it is, as the OpenCL generator prints it: its launch is its own.
Expected<LaunchDims> emit_scheduled_kernel(const gpu::GpuKernel& kernel,
                                           const SpirvTarget& target, SpvEmitter& emitter,
                                           SpvBuilder& b, Builtins& builtins);

}  // namespace plaidml::jit::spirv
