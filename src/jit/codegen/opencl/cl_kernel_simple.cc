// Band-mapped kernels (cl_kernel.h): one work-item per iteration of the kernel's band, laid out
// by jit/codegen/gpu/band_launch.h. Work-items past a loop's end return (no barriers in these
// kernels).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "jit/codegen/opencl/cl_kernel.h"

namespace plaidml::jit::opencl {

using loop::Stmt;

namespace {

Expected<LaunchDims> launch_dims(const std::array<BandDim, 3>& dims, const GpuTarget& target,
                                 const std::string& kernel) {
  size_t d = 0;
  std::optional<LaunchDims> out = band_launch(dims, target.max_workgroup_size, &d);
  if (!out) {
    return make_error(StatusCode::kUnsupported,
                      "OpenCL kernel '{}': {} work-items in NDRange dimension {} exceed the "
                      "launch limit",
                      kernel, dims[d].extent, d);
  }
  return *out;
}

// `lo + id * step` of a band loop.
std::string loop_value(const Stmt& loop, const std::string& id) {
  std::string v = loop.step == 1 ? id : fmt::format("{} * {}", id, loop.step);
  int64_t lo = loop.lo->int_value;
  return lo == 0 ? v : fmt::format("{} + {}", lo, v);
}

// The work-item ids, the ragged-edge guard and the band variables; then the band's body.
void emit_band(const std::array<BandDim, 3>& dims, const LaunchDims& launch, bool last,
               ClPrinter& printer, std::string& out) {
  std::string it = printer.index_type();
  std::vector<std::string> beyond;  // the work-item is past the band's end
  for (size_t d = 0; d < 3; ++d) {
    if (dims[d].loops.empty()) continue;
    // A flattened dim 2 may count past int even when each of its loops fits.
    bool wide = dims[d].extent > std::numeric_limits<int32_t>::max();
    std::string t = wide ? "long" : it;
    out += fmt::format("  const {0} g{1} = ({0})get_global_id({1});\n", t, d);
    uint64_t global = uint64_t{launch.grid[d]} * launch.workgroup[d];
    if (global != static_cast<uint64_t>(dims[d].extent)) {
      beyond.push_back(fmt::format("g{} >= {}", d, dims[d].extent));
    }
  }
  int indent = 1;
  if (!beyond.empty() && last) {
    out += fmt::format("  if ({}) return;\n", fmt::join(beyond, " || "));
  } else if (!beyond.empty()) {
    // Statements follow the band in the kernel: skip the body, not the rest.
    out += fmt::format("  if (!({})) {{\n", fmt::join(beyond, " || "));
    indent = 2;
  }
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  for (size_t d = 0; d < 3; ++d) {
    const auto& loops = dims[d].loops;
    std::string id = fmt::format("g{}", d);
    for (size_t j = loops.size(); j-- > 0;) {  // innermost first: its id is the remainder
      const Stmt& loop = *loops[j];
      std::string pos = j == 0 ? id : fmt::format("{} % {}", id, trip_count(loop));
      out += fmt::format("{}const {} {} = ({})({});\n", pad, it, ClPrinter::identifier(loop.var),
                         it, loop_value(loop, j == 0 ? id : "(" + pos + ")"));
      if (j > 0) id = fmt::format("({} / {})", id, trip_count(loop));
    }
  }
  for (const auto& s : dims[0].loops[0]->body) printer.stmt(*s, indent, out);
  if (!beyond.empty() && !last) out += "  }\n";
}

}  // namespace

Expected<LaunchDims> emit_simple_kernel(const loop::Kernel& kernel, const GpuTarget& target,
                                        ClPrinter& printer, std::string& out) {
  std::vector<const Stmt*> band = loop::find_band(kernel);
  LaunchDims launch;
  std::string body;
  const auto& top = kernel.body->body;
  for (size_t i = 0; i < top.size(); ++i) {
    if (band.empty() || top[i].get() != band[0]) {
      printer.stmt(*top[i], 1, body);
      continue;
    }
    std::array<BandDim, 3> dims = map_band(band);
    PLAIDML_ASSIGN(launch, launch_dims(dims, target, kernel.name));
    emit_band(dims, launch, i + 1 == top.size(), printer, body);
  }
  if (!printer.status().is_ok()) {
    return printer.status().with_context(fmt::format("OpenCL kernel '{}': ", kernel.name));
  }
  out += printer.signature(kernel) + " {\n" + body + "}\n\n";
  return launch;
}

}  // namespace plaidml::jit::opencl
