// Helpers for the Vulkan plugin tests: the module loaded through the registry, an opened device
// that closes itself, the hand-written SPIR-V modules of spirv/ (assembled at build time), and
// small wrappers that keep the tests about results.
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "devices/registry.h"
#include "plaidml/plugin.h"

namespace plaidml::testing {

inline const plaidml_plugin* vulkan_plugin() {
  auto plugin = devices::load_plugin_module(PLAIDML_TEST_VULKAN_MODULE);
  INFO(plugin.status().message());
  REQUIRE(plugin.has_value());
  return *plugin;
}

inline std::string last_error(const plaidml_plugin* p) { return p->last_error(); }

// Whether CTest turned the Khronos validation layer on for this run.
inline bool validation_enabled() {
  const char* layers = std::getenv("VK_INSTANCE_LAYERS");
  return layers && std::strstr(layers, "VK_LAYER_KHRONOS_validation");
}

// The bytes of spirv/<name>.spvasm as spirv-as assembled them.
inline std::vector<uint8_t> spirv_module(const std::string& name) {
  std::ifstream in(std::string(PLAIDML_TEST_SPIRV_DIR) + "/" + name + ".spv", std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

using TestOptions = std::vector<std::pair<std::string, std::string>>;

// Closes the device and checks that closing it left no validation error behind. The layer's
// object tracker reports each Vulkan object still alive when vkDestroyDevice runs (inside
// close_device, which has no status), and the plugin hands what the layer reported to the next
// call: device_count fails with it.
inline void close_checked(const plaidml_plugin* p, plaidml_plugin_device device) {
  p->close_device(device);
  uint32_t count = 0;
  plaidml_plugin_status s = p->device_count(&count);
  INFO("after closing the device: " << last_error(p));
  CHECK(s == PLAIDML_PLUGIN_OK);
}

// Device 0 of the plugin, opened for one test with `options`.
class OpenDevice {
 public:
  explicit OpenDevice(TestOptions options = {})
      : p_(vulkan_plugin()), options_(std::move(options)) {
    std::vector<plaidml_plugin_option> raw;
    for (const auto& [k, v] : options_) raw.push_back({k.c_str(), v.c_str()});
    plaidml_plugin_status s = p_->open_device(0, raw.data(), raw.size(), &device_);
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
  }
  ~OpenDevice() {
    for (auto e : executables_) p_->unload(device_, e);
    for (auto b : buffers_) p_->free_buffer(device_, b);
    close_checked(p_, device_);
  }
  OpenDevice(const OpenDevice&) = delete;
  OpenDevice& operator=(const OpenDevice&) = delete;

  const plaidml_plugin* p() const { return p_; }
  plaidml_plugin_device get() const { return device_; }

  plaidml_plugin_buffer buffer(uint64_t bytes) {
    plaidml_plugin_buffer b = nullptr;
    plaidml_plugin_status s = p_->allocate(device_, bytes, &b);
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    buffers_.push_back(b);
    return b;
  }

  template <typename T>
  plaidml_plugin_buffer buffer_with(const std::vector<T>& values) {
    plaidml_plugin_buffer b = buffer(values.size() * sizeof(T));
    plaidml_plugin_status s = p_->write(device_, b, 0, values.data(), values.size() * sizeof(T));
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return b;
  }

  template <typename T>
  std::vector<T> read(plaidml_plugin_buffer b, size_t count, uint64_t offset = 0) {
    std::vector<T> out(count);
    plaidml_plugin_status s = p_->read(device_, b, offset, out.data(), count * sizeof(T));
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return out;
  }

  // Loads a SPIR-V module; the status is returned so that tests can check failures.
  plaidml_plugin_status load(const std::vector<uint8_t>& module,
                             const std::vector<std::string>& symbols,
                             plaidml_plugin_executable* out) {
    std::vector<const char*> names;
    for (const auto& s : symbols) names.push_back(s.c_str());
    plaidml_plugin_status s = p_->load(device_, "spirv", module.data(), module.size(),
                                       names.data(), names.size(), out);
    if (s == PLAIDML_PLUGIN_OK) executables_.push_back(*out);
    return s;
  }

  plaidml_plugin_executable must_load(const std::vector<uint8_t>& module,
                                      const std::vector<std::string>& symbols) {
    plaidml_plugin_executable exe = nullptr;
    plaidml_plugin_status s = load(module, symbols, &exe);
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return exe;
  }

  plaidml_plugin_status launch(plaidml_plugin_executable exe, uint32_t kernel,
                               std::array<uint32_t, 3> grid, std::array<uint32_t, 3> workgroup,
                               const std::vector<plaidml_plugin_buffer>& args) {
    plaidml_plugin_launch_info info{};
    info.struct_size = sizeof(info);
    info.kernel = kernel;
    info.parallel_extent = 1;
    for (int d = 0; d < 3; ++d) {
      info.grid[d] = grid[d];
      info.workgroup[d] = workgroup[d];
    }
    return p_->launch(device_, exe, &info, args.data(), args.size());
  }

 private:
  const plaidml_plugin* p_;
  TestOptions options_;
  plaidml_plugin_device device_ = nullptr;
  std::vector<plaidml_plugin_buffer> buffers_;
  std::vector<plaidml_plugin_executable> executables_;
};

// The element values the tests feed the add_one/twice kernels.
inline std::vector<float> ramp(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = 0.25f * float(i) - 7.0f;
  return v;
}

}  // namespace plaidml::testing
