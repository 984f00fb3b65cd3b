// The plugin under test, named by the environment (tests/devices/plugin_abi/CMakeLists.txt
// runs this suite once per plugin):
//   PLAIDML_TEST_PLUGIN_MODULE    the module's path
//   PLAIDML_TEST_PLUGIN_ARTIFACT  a file holding a valid artifact for it
//   PLAIDML_TEST_PLUGIN_FORMAT    that artifact's format
//   PLAIDML_TEST_PLUGIN_SYMBOL    a kernel in it
//   PLAIDML_TEST_PLUGIN_BUILDS    1 when the plugin builds code at load (a missing symbol or
//                                 garbage code fails); the null device accepts anything
// The module is opened with dlopen alone: the suite checks the ABI, not libplaidml's loader.
#pragma once

#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "plaidml/plugin.h"

namespace plaidml::testing {

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v != nullptr, name << " is not set");
  return v;
}

inline const plaidml_plugin* plugin() {
  static const plaidml_plugin* p = [] {
    std::string path = env("PLAIDML_TEST_PLUGIN_MODULE");
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(module != nullptr, dlerror());
    auto entry = reinterpret_cast<plaidml_plugin_get_v1_fn>(dlsym(module, PLAIDML_PLUGIN_ENTRY_V1));
    bool exported = entry != nullptr;
    REQUIRE_MESSAGE(exported, "no " PLAIDML_PLUGIN_ENTRY_V1);
    return entry();
  }();
  REQUIRE(p != nullptr);
  return p;
}

inline std::string error() { return plugin()->last_error(); }

inline std::vector<char> artifact() {
  std::ifstream in(env("PLAIDML_TEST_PLUGIN_ARTIFACT"), std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Closes the device and checks that the plugin reports nothing at its next call: the Vulkan
// plugin hands on what the validation layer found while closing (a Vulkan object still alive
// at vkDestroyDevice), since close_device has no status.
inline void close_checked(plaidml_plugin_device d) {
  plugin()->close_device(d);
  uint32_t count = 0;
  plaidml_plugin_status s = plugin()->device_count(&count);
  INFO("after closing the device: " << error());
  CHECK(s == PLAIDML_PLUGIN_OK);
}

// Device 0, opened for one test; what the test leaves behind the device frees when it closes.
class Device {
 public:
  // Opened with one option when key is given.
  explicit Device(const char* key = nullptr, const char* value = nullptr) {
    plaidml_plugin_option option{key, value};
    plaidml_plugin_status s = plugin()->open_device(0, key ? &option : nullptr, key ? 1 : 0, &d_);
    INFO(error());
    REQUIRE(s == PLAIDML_PLUGIN_OK);
  }
  ~Device() { close_checked(d_); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  plaidml_plugin_device get() const { return d_; }

  plaidml_plugin_buffer buffer(uint64_t bytes) {
    plaidml_plugin_buffer b = nullptr;
    plaidml_plugin_status s = plugin()->allocate(d_, bytes, &b);
    INFO(error());
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return b;
  }

  plaidml_plugin_status load(const char* format, const std::vector<char>& code,
                             const char* symbol, plaidml_plugin_executable* out) {
    return plugin()->load(d_, format, code.data(), code.size(), &symbol, 1, out);
  }

  plaidml_plugin_executable must_load() {
    plaidml_plugin_executable exe = nullptr;
    std::string format = env("PLAIDML_TEST_PLUGIN_FORMAT");
    std::string symbol = env("PLAIDML_TEST_PLUGIN_SYMBOL");
    plaidml_plugin_status s = load(format.c_str(), artifact(), symbol.c_str(), &exe);
    INFO(error());
    REQUIRE(s == PLAIDML_PLUGIN_OK);
    return exe;
  }

 private:
  plaidml_plugin_device d_ = nullptr;
};

}  // namespace plaidml::testing
