// Scheduled GPU kernels (cl_kernel.h) printed as OpenCL C: the work-item coordinates from
// get_local_id / get_group_id, the workgroup arrays as __local arrays, then the loop IR as
// written. The schedule is the kernel's own (jit/codegen/gpu/gpu_kernel.h); nothing is decided
// here.
#include <fmt/format.h>

#include "jit/codegen/opencl/cl_kernel.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::opencl {

namespace {

// The coordinates the body reads, as int (or long) constants bound to their reserved names.
void coordinates(const gpu::GpuKernel& k, ClPrinter& printer, std::string& out) {
  const std::string ix = printer.index_type();
  for (int d = 0; d < 3; ++d) {
    const std::pair<std::string, const char*> ids[] = {{gpu::local_id(d), "local"},
                                                       {gpu::group_id(d), "group"}};
    for (const auto& [name, kind] : ids) {
      if (!loop::mentions(*k.kernel.body, name)) continue;
      std::string c_name = fmt::format("{}{}", kind, d);
      out += fmt::format("  const {0} {1} = ({0})get_{2}_id({3});\n", ix, c_name, kind, d);
      printer.bind(name, c_name);
    }
  }
}

}  // namespace

LaunchDims emit_scheduled_kernel(const gpu::GpuKernel& k, ClPrinter& printer, std::string& out) {
  const auto& wg = k.launch.workgroup;
  std::string attr = fmt::format("__attribute__((reqd_work_group_size({}, {}, {})))", wg[0], wg[1],
                                 wg[2]);
  out += printer.signature(k.kernel.name, k.params, attr) + " {\n";
  coordinates(k, printer, out);
  // 16-byte aligned, so that the compiler may read a tiled kernel's register groups
  // (register_group) as vector loads.
  for (const gpu::WorkgroupArray& a : k.arrays) {
    out += fmt::format("  __local {} {}[{}] __attribute__((aligned(16)));\n",
                       ClPrinter::value_type(a.dtype), a.name, a.elements);
  }
  printer.set_workgroup_arrays(&k.arrays);
  for (const auto& s : k.kernel.body->body) printer.stmt(*s, 1, out);
  printer.set_workgroup_arrays(nullptr);
  out += "}\n\n";
  return k.launch;
}

}  // namespace plaidml::jit::opencl
