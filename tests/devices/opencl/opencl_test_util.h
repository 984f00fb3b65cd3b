// Helpers for the OpenCL plugin tests: the module loaded through the registry, an opened device
// that closes itself, and small wrappers that keep the tests about results.
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "devices/registry.h"
#include "plaidml/plugin.h"

namespace plaidml::testing {

inline const plaidml_plugin* opencl_plugin() {
  auto plugin = devices::load_plugin_module(PLAIDML_TEST_OPENCL_MODULE);
  INFO(plugin.status().message());
  REQUIRE(plugin.has_value());
  return *plugin;
}

inline std::string last_error(const plaidml_plugin* p) { return p->last_error(); }

// Device 0 of the plugin, opened for one test.
class OpenDevice {
 public:
  OpenDevice() : p_(opencl_plugin()) {
    plaidml_plugin_status s = p_->open_device(0, nullptr, 0, &device_);
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
  }
  ~OpenDevice() {
    for (auto e : executables_) p_->unload(device_, e);
    for (auto b : buffers_) p_->free_buffer(device_, b);
    p_->close_device(device_);
  }
  OpenDevice(const OpenDevice&) = delete;
  OpenDevice& operator=(const OpenDevice&) = delete;

  const plaidml_plugin* p() const { return p_; }
  plaidml_plugin_device get() const { return device_; }

  plaidml_plugin_buffer buffer(uint64_t bytes) {
    plaidml_plugin_buffer b = nullptr;
    REQUIRE(p_->allocate(device_, bytes, &b) == PLAIDML_PLUGIN_OK);
    buffers_.push_back(b);
    return b;
  }

  template <typename T>
  plaidml_plugin_buffer buffer_with(const std::vector<T>& values) {
    plaidml_plugin_buffer b = buffer(values.size() * sizeof(T));
    REQUIRE(p_->write(device_, b, 0, values.data(), values.size() * sizeof(T)) ==
            PLAIDML_PLUGIN_OK);
    return b;
  }

  template <typename T>
  std::vector<T> read(plaidml_plugin_buffer b, size_t count) {
    std::vector<T> out(count);
    plaidml_plugin_status s = p_->read(device_, b, 0, out.data(), count * sizeof(T));
    INFO(last_error(p_));
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return out;
  }

  // Loads OpenCL C source; the status is returned so that tests can check failures.
  plaidml_plugin_status load(const std::string& source, const std::vector<std::string>& symbols,
                             plaidml_plugin_executable* out) {
    std::vector<const char*> names;
    for (const auto& s : symbols) names.push_back(s.c_str());
    plaidml_plugin_status s = p_->load(device_, "opencl-c", source.data(), source.size(),
                                       names.data(), names.size(), out);
    if (s == PLAIDML_PLUGIN_OK) executables_.push_back(*out);
    return s;
  }

  plaidml_plugin_executable must_load(const std::string& source,
                                      const std::vector<std::string>& symbols) {
    plaidml_plugin_executable exe = nullptr;
    plaidml_plugin_status s = load(source, symbols, &exe);
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
  plaidml_plugin_device device_ = nullptr;
  std::vector<plaidml_plugin_buffer> buffers_;
  std::vector<plaidml_plugin_executable> executables_;
};

// a + b over n elements, guarded for a global size rounded up to the workgroup.
inline std::string vadd_source(int n) {
  return "__kernel void vadd(__global const float* a, __global const float* b,\n"
         "                   __global float* c) {\n"
         "  size_t i = get_global_id(0);\n"
         "  if (i < " +
         std::to_string(n) +
         ") c[i] = a[i] + b[i];\n"
         "}\n";
}

}  // namespace plaidml::testing
