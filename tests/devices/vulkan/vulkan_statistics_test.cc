// PLAIDML_VULKAN_PIPELINE_STATISTICS=1 (set by CTest for this binary): kernels load and run as
// without it, and each pipeline's statistics line reaches stderr exactly when the device has
// VK_KHR_pipeline_executable_properties (asked of the loader here, not of the plugin).
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <string>
#include <vector>

#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

bool first_device_lists(const char* extension) {
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  VkInstance instance = VK_NULL_HANDLE;
  REQUIRE(vkCreateInstance(&info, nullptr, &instance) == VK_SUCCESS);
  uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(instance, &count, &physical);
  REQUIRE(count == 1);
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> extensions(n);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, extensions.data());
  vkDestroyInstance(instance, nullptr);
  for (const auto& e : extensions) {
    if (std::string(e.extensionName) == extension) return true;
  }
  return false;
}

// What the calls of `body` write to stderr.
template <typename Body>
std::string stderr_of(Body body) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  int saved = dup(2);
  dup2(fileno(capture), 2);
  body();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(capture);
  char buf[4096];
  while (size_t got = std::fread(buf, 1, sizeof buf, capture)) text.append(buf, got);
  std::fclose(capture);
  return text;
}

}  // namespace

TEST_CASE("vulkan statistics: kernels run as before, statistics where the device has them") {
  constexpr int kN = 1000;  // the element count baked into add_then_twice
  const bool has_statistics = first_device_lists("VK_KHR_pipeline_executable_properties");
  std::vector<float> c;
  std::string log = stderr_of([&] {
    OpenDevice dev;
    auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
    std::vector<float> a = ramp(kN);
    auto ba = dev.buffer_with(a);
    auto bb = dev.buffer(kN * 4);
    auto bc = dev.buffer(kN * 4);
    REQUIRE(dev.launch(exe, 0, {(kN + 63) / 64, 1, 1}, {64, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    REQUIRE(dev.launch(exe, 1, {(kN + 31) / 32, 1, 1}, {32, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    c = dev.read<float>(bc, kN);
  });
  std::vector<float> a = ramp(kN);
  for (int i = 0; i < kN; ++i) REQUIRE(c[i] == (a[i] + 1.0f) * 2.0f);
  INFO(log);
  CHECK((log.find("'add_one':") != std::string::npos) == has_statistics);
  CHECK((log.find("'twice':") != std::string::npos) == has_statistics);
}
