// The two kernel printers of the OpenCL C generator (opencl_codegen.h). Each appends one
// `__kernel` function to `out` and returns its launch dims.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/opencl/cl_printer.h"

namespace plaidml::jit::opencl {

// Band-mapped kernel (any loop-IR kernel): the parallel loop and the independent loops
// perfectly nested inside it become NDRange dimensions (innermost -> dim 0, next -> dim 1, the
// rest flattened into dim 2), guarded against the ragged edge; the rest of the body runs per
// work-item. A kernel without a parallel loop runs as one work-item.
Expected<LaunchDims> emit_simple_kernel(const loop::Kernel& kernel, const GpuTarget& target,
                                        ClPrinter& printer, std::string& out);

// A scheduled GPU kernel (jit/codegen/gpu/gpu_kernel.h, the tiled contraction of
// gpu_schedule.h), printed as it is: its launch is its own.
LaunchDims emit_scheduled_kernel(const gpu::GpuKernel& kernel, ClPrinter& printer,
                                 std::string& out);

}  // namespace plaidml::jit::opencl
