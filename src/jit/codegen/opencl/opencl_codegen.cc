// emit_opencl: one OpenCL C program for a lowered program (see opencl_codegen.h).
#include "jit/codegen/opencl/opencl_codegen.h"

#include <fmt/format.h>

#include "core/base/env.h"
#include "core/base/logging.h"
#include "jit/codegen/opencl/cl_kernel.h"

namespace plaidml::jit {

namespace {

bool expr_uses_f64(const loop::Expr& e) {
  if (e.dtype == DType::F64) return true;
  for (const auto& a : e.args) {
    if (a && expr_uses_f64(*a)) return true;
  }
  return false;
}

bool stmt_uses_f64(const loop::Stmt& s) {
  for (const loop::ExprPtr& e : {s.lo, s.hi, s.cond, s.index, s.value}) {
    if (e && expr_uses_f64(*e)) return true;
  }
  for (const auto& b : s.body) {
    if (stmt_uses_f64(*b)) return true;
  }
  return false;
}

// A kernel that computes in f64 or takes an f64 buffer needs cl_khr_fp64.
Status check_f64(const LoweredProgram& lowered, const GpuTarget& target) {
  if (target.fp64) return Status::ok();
  for (const auto& k : lowered.kernels) {
    bool uses = stmt_uses_f64(*k.body);
    for (int slot : loop::parameters(k)) {
      uses = uses || lowered.slots[static_cast<size_t>(slot)].shape.dtype == DType::F64;
    }
    if (uses) {
      return make_error(StatusCode::kUnsupported,
                        "kernel '{}' computes in f64, which {} does not support (no cl_khr_fp64)",
                        k.name, target.device_name);
    }
  }
  return Status::ok();
}

// PLAIDML_DUMP=opencl (or a list naming it, e.g. "1,opencl") logs the generated source.
void dump_if_asked(const std::string& source) {
  std::string value = "," + env_string("PLAIDML_DUMP", "") + ",";
  if (value.find(",opencl,") == std::string::npos) return;
  logger().warn("PLAIDML_DUMP opencl:\n{}", source);
}

}  // namespace

Expected<Artifact> emit_opencl(const LoweredProgram& lowered, const GpuTarget& target,
                               const gpu::TileHints& hints) {
  PLAIDML_TRY(check_f64(lowered, target));
  // The schedule is decided here, once; the kernel emitters only print it.
  const gpu::GpuSchedule schedule =
      gpu::schedule_program(lowered, target, gpu::DispatchLimits{}, hints);
  const std::vector<const gpu::GpuKernel*> scheduled = schedule.scheduled_kernels();
  opencl::ClPrinter printer(lowered, opencl::ClPrinter::fits_index32(lowered, scheduled),
                            scheduled);
  std::string kernels;
  Artifact artifact;
  artifact.format = kOpenClFormat;
  for (size_t i = 0; i < lowered.kernels.size(); ++i) {
    const loop::Kernel& kernel = lowered.kernels[i];
    LaunchDims dims;
    if (const auto& scheduled_kernel = schedule.kernels[i]) {
      dims = opencl::emit_scheduled_kernel(*scheduled_kernel, printer, kernels);
    } else {
      PLAIDML_ASSIGN(dims, opencl::emit_simple_kernel(kernel, target, printer, kernels));
    }
    KernelEntry entry;
    entry.symbol = kernel.name;
    entry.parallel_extent = loop::parallel_extent(kernel);
    entry.work = kernel.work;
    entry.grid = dims.grid;
    entry.workgroup = dims.workgroup;
    artifact.kernels.push_back(std::move(entry));
  }
  if (!printer.status().is_ok()) return printer.status();
  std::string source = printer.preamble(target) + kernels;
  dump_if_asked(source);
  artifact.bytes.assign(source.begin(), source.end());
  return artifact;
}

}  // namespace plaidml::jit
