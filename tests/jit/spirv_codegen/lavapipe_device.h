// Runs generated SPIR-V on device 0 of the Vulkan plugin module (lavapipe in CI) and compares
// the outputs with the reference interpreter: the harness of the lavapipe tests.
#pragma once

#include <dlfcn.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/passes/pipeline.h"
#include "plaidml/plugin.h"
#include "support/tensors.h"

namespace plaidml::jit::testing {

// Device 0 of the Vulkan plugin module, opened through its C vtable (dlopen: no registry).
class Device {
 public:
  Device() {
    void* module = dlopen(PLAIDML_TEST_VULKAN_MODULE, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(module != nullptr, dlerror());
    auto get = reinterpret_cast<plaidml_plugin_get_v1_fn>(dlsym(module, "plaidml_plugin_get_v1"));
    REQUIRE(bool(get));
    p_ = get();
    REQUIRE_MESSAGE(p_->open_device(0, nullptr, 0, &device_) == PLAIDML_PLUGIN_OK,
                    p_->last_error());
  }
  ~Device() {
    for (auto e : executables_) p_->unload(device_, e);
    for (auto b : buffers_) p_->free_buffer(device_, b);
    p_->close_device(device_);
  }
  std::string error() const { return p_->last_error(); }
  plaidml_plugin_buffer buffer(const std::vector<uint8_t>& data, uint64_t bytes) {
    plaidml_plugin_buffer b = nullptr;
    REQUIRE_MESSAGE(p_->allocate(device_, bytes, &b) == PLAIDML_PLUGIN_OK, error());
    buffers_.push_back(b);
    if (!data.empty()) {
      REQUIRE_MESSAGE(p_->write(device_, b, 0, data.data(), data.size()) == PLAIDML_PLUGIN_OK,
                      error());
    }
    return b;
  }
  std::vector<uint8_t> read(plaidml_plugin_buffer b, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    if (bytes > 0)
      REQUIRE_MESSAGE(p_->read(device_, b, 0, out.data(), bytes) == PLAIDML_PLUGIN_OK, error());
    return out;
  }
  // "" or the plugin's error.
  // Kernel k takes the buffers of `slots` at loop::parameters(kernels[k]), in that order.
  std::string run(const Artifact& a, const std::vector<loop::Kernel>& kernels,
                  const std::vector<plaidml_plugin_buffer>& slots) {
    std::vector<const char*> names;
    for (const KernelEntry& k : a.kernels) names.push_back(k.symbol.c_str());
    plaidml_plugin_executable exe = nullptr;
    if (p_->load(device_, "spirv", a.bytes.data(), a.bytes.size(), names.data(), names.size(),
                 &exe) != PLAIDML_PLUGIN_OK) {
      return "load: " + error();
    }
    executables_.push_back(exe);
    for (size_t k = 0; k < a.kernels.size(); ++k) {
      plaidml_plugin_launch_info info{};
      info.struct_size = sizeof(info);
      info.kernel = uint32_t(k);
      info.parallel_extent = 1;
      for (int d = 0; d < 3; ++d) {
        info.grid[d] = a.kernels[k].grid[d];
        info.workgroup[d] = a.kernels[k].workgroup[d];
      }
      std::vector<plaidml_plugin_buffer> args;
      for (int slot : loop::parameters(kernels.at(k))) args.push_back(slots.at(size_t(slot)));
      if (p_->launch(device_, exe, &info, args.data(), args.size()) != PLAIDML_PLUGIN_OK) {
        return "launch: " + error();
      }
    }
    if (p_->synchronize(device_) != PLAIDML_PLUGIN_OK) return "synchronize: " + error();
    return "";
  }

 private:
  const plaidml_plugin* p_ = nullptr;
  plaidml_plugin_device device_ = nullptr;
  std::vector<plaidml_plugin_buffer> buffers_;
  std::vector<plaidml_plugin_executable> executables_;
};

// The program `tile` lowered for GPUs as jit/compiler.cc lowers it, emitted for `target`, run
// on `dev` with `inputs`: "" when every output matches the interpreter's (within `tolerance`),
// else what differs. `artifact`, when given, receives the module that ran; `hints` go to the
// schedule.
inline std::string run_spirv(Device& dev, const std::string& tile,
                             const std::vector<HostTensor>& inputs, const SpirvTarget& target,
                             std::optional<plaidml::testing::Tolerance> tolerance = std::nullopt,
                             Artifact* artifact = nullptr, const gpu::TileHints& hints = {}) {
  auto program = parse::parse_tile(tile, "test");
  if (!program) return program.status().message();
  std::vector<Shape> shapes;
  for (const HostTensor& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(*program, shapes);
  if (!bound) return bound.status().message();
  auto expected = eval::evaluate(*bound, inputs);
  if (!expected) return "interpreter: " + expected.status().message();
  LowerOptions options;
  options.gpu = true;
  auto lowered = lower(*bound, options);
  if (!lowered) return lowered.status().message();
  if (Status s = passes::run_pipeline(*lowered); !s.is_ok()) return s.message();
  auto module = emit_spirv(*lowered, target, hints);
  if (!module) return module.status().message();
  if (artifact) *artifact = *module;
  std::vector<plaidml_plugin_buffer> buffers;
  for (const BufferSlot& slot : lowered->slots) {
    uint64_t bytes = std::max<uint64_t>(uint64_t(slot.shape.byte_size()), 4);
    bool input = slot.role == BufferSlot::Role::kInput;
    buffers.push_back(
        dev.buffer(input ? inputs.at(size_t(slot.index)).bytes : std::vector<uint8_t>{}, bytes));
  }
  if (std::string e = dev.run(*module, lowered->kernels, buffers); !e.empty()) return e;
  std::string report;
  for (size_t s = 0; s < lowered->slots.size(); ++s) {
    const BufferSlot& slot = lowered->slots[s];
    if (slot.role != BufferSlot::Role::kOutput) continue;
    HostTensor actual(slot.shape);
    actual.bytes = dev.read(buffers[s], actual.bytes.size());
    std::string diff =
        plaidml::testing::compare_tensors(actual, expected->at(size_t(slot.index)), tolerance);
    if (!diff.empty()) report += fmt::format("output {}: {}\n", slot.index, diff);
  }
  return report;
}

}  // namespace plaidml::jit::testing
