#include "jit/compiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/base/logging.h"
#include "jit/codegen/llvm/llvm_codegen.h"
#include "jit/codegen/opencl/opencl_codegen.h"
#ifdef PLAIDML_HAVE_SPIRV
#include "jit/codegen/spirv/spirv_codegen.h"
#endif
#include "jit/host_caches.h"
#include "jit/passes/pipeline.h"

namespace plaidml::jit {
namespace {

constexpr const char* kCpuFormat = "elf-object";

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
  return t;
}
#endif

// The generated formats, in the order generate() prefers them.
std::string generated_formats() {
#ifdef PLAIDML_HAVE_SPIRV
  return fmt::format("{}, {}, {}", kCpuFormat, kOpenClFormat, kSpirvFormat);
#else
  return fmt::format("{}, {}", kCpuFormat, kOpenClFormat);
#endif
}

bool wants_gpu_lowering(const devices::Device& device) {
  return !device.info().accepts(kCpuFormat);
}

// Code generation for the device's format: the CPU's ELF objects first, else OpenCL C, else
// SPIR-V (in builds with the Vulkan device).
Expected<Artifact> generate(const LoweredProgram& lowered, const devices::Device& device) {
  if (device.info().accepts(kCpuFormat)) return emit_llvm_object(lowered, host_target());
  Expected<Artifact> artifact = Status(StatusCode::kUnsupported, "");
  if (device.info().accepts(kOpenClFormat)) {
    artifact = emit_opencl(lowered, gpu_target(device.info()));
#ifdef PLAIDML_HAVE_SPIRV
  } else if (device.info().accepts(kSpirvFormat)) {
    artifact = emit_spirv(lowered, spirv_target(device.info()));
#endif
  } else {
    std::string formats;
    for (const auto& f : device.info().formats) formats += (formats.empty() ? "" : ", ") + f;
    return make_error(StatusCode::kUnsupported,
                      "device {} accepts artifact formats [{}]; this build generates {}",
                      device.id(), formats, generated_formats());
  }
  if (!artifact) return artifact.status().with_context(fmt::format("device {}: ", device.id()));
  return artifact;
}

// The CPU passes schedule for the host's vector unit; GPU code keeps the plain loop nest.
passes::PipelineOptions pipeline_options(const devices::Device& device) {
  passes::PipelineOptions options = passes::default_pipeline_options();
  if (!device.info().accepts(kCpuFormat)) return options;
  options.cpu = passes::cpu_target_for(host_target().vector_bits, device.info().compute_units);
  options.cpu.l1_bytes = host_caches().l1_bytes;
  options.cpu.l2_bytes = host_caches().l2_bytes;
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Expected<std::shared_ptr<const CompiledPlan>> compile(
    const ir::BoundProgram& bound, const std::shared_ptr<devices::Device>& device,
    int device_index) {
  auto start = std::chrono::steady_clock::now();
  LowerOptions options;
  options.gpu = wants_gpu_lowering(*device);
  PLAIDML_ASSIGN(LoweredProgram lowered, lower(bound, options));
  PLAIDML_TRY(passes::run_pipeline(lowered, pipeline_options(*device)));
  double lower_s = seconds_since(start);
  PLAIDML_ASSIGN(Artifact artifact, generate(lowered, *device));
  double codegen_s = seconds_since(start) - lower_s;

  auto plan = std::make_shared<CompiledPlan>();
  plan->input_shapes_ = bound.input_shapes;
  plan->output_shapes_ = bound.output_shapes;
  plan->slots_ = std::move(lowered.slots);
  plan->kernels_ = artifact.kernels;
  plan->device_ = device;
  plan->device_index_ = device_index;
  if (!artifact.kernels.empty()) {
    std::vector<std::string> symbols;
    for (const auto& k : artifact.kernels) symbols.push_back(k.symbol);
    PLAIDML_ASSIGN(plan->executable_, device->load(artifact.format, artifact.bytes, symbols));
  }
  logger().debug(
      "compiled '{}' for {}: {} kernels, {} object bytes (lower+passes {:.3f}s, codegen "
      "{:.3f}s, total {:.3f}s)",
      bound.program->name, device->id(), artifact.kernels.size(), artifact.bytes.size(), lower_s,
      codegen_s, seconds_since(start));
  return std::shared_ptr<const CompiledPlan>(std::move(plan));
}

}  // namespace plaidml::jit
