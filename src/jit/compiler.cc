#include "jit/compiler.h"

#include <fmt/format.h>

#include <chrono>

#include "core/base/logging.h"
#include "jit/codegen/llvm/llvm_codegen.h"
#include "jit/passes/pipeline.h"

namespace plaidml::jit {
namespace {

constexpr const char* kCpuFormat = "elf-object";

// Code generation for the device's format. Only the CPU format exists today; the OpenCL and
// Vulkan emitters add their formats here.
Expected<Artifact> generate(const LoweredProgram& lowered, const devices::Device& device) {
  if (device.info().accepts(kCpuFormat)) return emit_llvm_object(lowered, host_target());
  std::string formats;
  for (const auto& f : device.info().formats) formats += (formats.empty() ? "" : ", ") + f;
  return make_error(StatusCode::kUnsupported,
                    "device {} accepts artifact formats [{}]; this build generates only {}",
                    device.id(), formats, kCpuFormat);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Expected<std::shared_ptr<const CompiledPlan>> compile(
    const ir::BoundProgram& bound, const std::shared_ptr<devices::Device>& device,
    int device_index) {
  auto start = std::chrono::steady_clock::now();
  PLAIDML_ASSIGN(LoweredProgram lowered, lower(bound));
  PLAIDML_TRY(passes::run_pipeline(lowered));
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
