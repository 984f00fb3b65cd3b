// Placeholder until the emitters land.
#include "jit/codegen/opencl/opencl_codegen.h"

namespace plaidml::jit {

Expected<Artifact> emit_opencl(const LoweredProgram&, const GpuTarget& target) {
  return make_error(StatusCode::kUnsupported, "no OpenCL C code generator yet for {}",
                    target.device_name);
}

}  // namespace plaidml::jit
