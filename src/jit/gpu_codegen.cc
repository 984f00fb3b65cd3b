// The compiler's view of GPU code generation (gpu_codegen.h).
#include "jit/gpu_codegen.h"

#include <algorithm>

#include "jit/codegen/opencl/opencl_codegen.h"

namespace plaidml::jit {

GpuTarget gpu_target(const devices::DeviceInfo& info) {
  GpuTarget t;
  t.device_name = info.name;
  t.max_workgroup_size = std::max(1, info.max_workgroup_size);
  t.local_memory_bytes = info.local_memory_bytes;
  t.compute_units = std::max(1, info.compute_units);
  t.fp16 = info.fp16;
  t.fp64 = info.fp64;
  return t;
}

#ifdef PLAIDML_HAVE_SPIRV
SpirvTarget spirv_target(const devices::DeviceInfo& info) {
  SpirvTarget t;
  t.device_name = info.name;
  t.max_workgroup_size = std::max(1, info.max_workgroup_size);
  t.shared_memory_bytes = info.local_memory_bytes;
  t.compute_units = std::max(1, info.compute_units);
  t.int8 = info.int8;
  t.int16 = info.int16;
  t.int64 = info.int64;
  t.float16 = info.fp16;
  t.float64 = info.fp64;
  t.float_controls = info.ieee_float_controls;
  t.matrix_shapes = parse_matrix_shapes(info.matrix_shapes);
  t.subgroup_size = info.subgroup_size;
  return t;
}
#endif

GpuCodegen gpu_codegen(const devices::DeviceInfo& info, const std::string& format) {
  GpuCodegen g;
#ifdef PLAIDML_HAVE_SPIRV
  if (format == kSpirvFormat) {
    SpirvTarget t = spirv_target(info);
    g.limits = t.limits();
    g.dispatch = spirv_dispatch_limits();
    g.emit = [t](const LoweredProgram& p, const gpu::TileHints& h) { return emit_spirv(p, t, h); };
    return g;
  }
#endif
  GpuTarget t = gpu_target(info);
  g.limits = t;
  g.emit = [t](const LoweredProgram& p, const gpu::TileHints& h) { return emit_opencl(p, t, h); };
  return g;
}

}  // namespace plaidml::jit
