// A GPU device's code generator as the compiler drives it: the targets derived from the device
// info (what the tile search and the emitters know of the device) and one emit function for
// the format compile() chose, taking tile hints (gpu_schedule.h) so that the measured tile
// search (tile_measure.h) and the final generation print through the same path.
#pragma once

#include <functional>
#include <string>

#include "core/base/status.h"
#include "devices/device.h"
#include "jit/codegen/artifact.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/gpu/gpu_target.h"
#include "jit/lower/lower.h"
#ifdef PLAIDML_HAVE_SPIRV
#include "jit/codegen/spirv/spirv_codegen.h"
#endif

namespace plaidml::jit {

struct GpuCodegen {
  GpuTarget limits;              // what the schedule works within
  gpu::DispatchLimits dispatch;  // what one launch can address
  std::function<Expected<Artifact>(const LoweredProgram&, const gpu::TileHints&)> emit;
};

GpuTarget gpu_target(const devices::DeviceInfo& info);
#ifdef PLAIDML_HAVE_SPIRV
SpirvTarget spirv_target(const devices::DeviceInfo& info);
#endif

// For format "opencl-c" or "spirv" (the latter in builds with the Vulkan device).
GpuCodegen gpu_codegen(const devices::DeviceInfo& info, const std::string& format);

}  // namespace plaidml::jit
