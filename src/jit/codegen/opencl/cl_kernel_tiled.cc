// Placeholder: the tiled contraction emitter lands here.
#include "jit/codegen/opencl/cl_kernel.h"

namespace plaidml::jit::opencl {

Expected<std::optional<LaunchDims>> emit_tiled_kernel(const loop::Kernel&, const GpuTarget&,
                                                      ClPrinter&, std::string&) {
  return std::optional<LaunchDims>();
}

}  // namespace plaidml::jit::opencl
