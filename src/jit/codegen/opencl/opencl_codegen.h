// Loop-IR kernels to OpenCL C (artifact format "opencl-c"). One program source holds every
// kernel of a lowered program; each kernel takes every buffer slot as an argument, in slot
// order (`__global T* s<k>`), as the runtime passes them.
//
// Per kernel:
//  - a register-form contraction becomes the tiled kernel the GPU schedule writes out
//    (jit/codegen/gpu/tiled_kernel.h), printed by cl_kernel_scheduled.cc: output tiles to
//    workgroups, a register block per thread, the reduction staged through __local memory;
//  - every other kernel (cl_kernel_simple.h) maps its band (the parallel loop and the
//    independent loops perfectly nested in it, loop_ir.h) to the NDRange, one work-item per
//    band iteration, and runs the rest of the body as written.
// Launch dims (grid in workgroups, workgroup in threads) go into each KernelEntry.
#pragma once

#include "core/base/status.h"
#include "jit/codegen/artifact.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/gpu/gpu_target.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

inline constexpr const char* kOpenClFormat = "opencl-c";

// Errors: kUnsupported for a dtype the device cannot compute (f64 without cl_khr_fp64), naming
// the kernel and the dtype. `hints`: tile choices that replace the cost model's (gpu_schedule.h).
Expected<Artifact> emit_opencl(const LoweredProgram& lowered, const GpuTarget& target,
                               const gpu::TileHints& hints = {});

}  // namespace plaidml::jit
