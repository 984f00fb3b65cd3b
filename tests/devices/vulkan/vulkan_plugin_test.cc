// The Vulkan plugin's vtable beyond the plugin-ABI suite (tests/devices/plugin_abi, which checks
// ranges, handles, allocation failure and formats on every plugin): enumeration and description
// checked against direct Vulkan queries through the loader, and buffers on both transfer paths
// (mapped memory and the staging buffer), device-side copies, options.
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// The oracle: device 0 straight from Vulkan (a second instance in this process).
struct DirectVulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  DirectVulkan() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    REQUIRE(vkCreateInstance(&info, nullptr, &instance) == VK_SUCCESS);
    uint32_t count = 1;
    VkResult r = vkEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE((r == VK_SUCCESS || r == VK_INCOMPLETE));
    REQUIRE(count >= 1);
  }
  ~DirectVulkan() { vkDestroyInstance(instance, nullptr); }
};

}  // namespace

TEST_CASE("vulkan plugin: enumerates and describes devices as Vulkan reports them") {
  const plaidml_plugin* p = vulkan_plugin();
  CHECK(std::string(p->name) == "vulkan");
  uint32_t count = 0;
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  REQUIRE(count >= 1);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);

  DirectVulkan direct;
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  vkGetPhysicalDeviceProperties2(direct.physical, &props);
  const VkPhysicalDeviceLimits& limits = props.properties.limits;
  CHECK(std::string(info.name) == props.properties.deviceName);
  bool is_cpu = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  CHECK(std::string(info.kind) == (is_cpu ? "cpu" : "gpu"));
  CHECK(std::string(info.artifact_formats) == "spirv");
  CHECK(info.max_workgroup_size == limits.maxComputeWorkGroupInvocations);
  CHECK(info.local_memory_bytes == limits.maxComputeSharedMemorySize);
  CHECK(info.subgroup_size == subgroup.subgroupSize);
  CHECK(info.subgroup_size >= 1);
  CHECK(info.compute_units >= 1);

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(direct.physical, &memory);
  uint64_t local = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      local += memory.memoryHeaps[i].size;
    }
  }
  CHECK(info.memory_bytes == local);
  CHECK(info.max_allocation_bytes > 0);
  CHECK(info.max_allocation_bytes <= info.memory_bytes);
  REQUIRE(info.memory_heaps != nullptr);
  CHECK(std::string(info.memory_heaps).find("device-local") != std::string::npos);

  // Flags: the shader features the device has, always with INT_LIMITS.
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
                                         &s16};
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, &s8};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f16i8};
  vkGetPhysicalDeviceFeatures2(direct.physical, &features);
  const VkPhysicalDeviceFeatures& f = features.features;
  auto flag = [&](uint32_t bit) { return bool(info.flags & bit); };
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_INT_LIMITS));
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_FP64) == bool(f.shaderFloat64));
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_INT64) == bool(f.shaderInt64));
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_INT16) == (f.shaderInt16 && s16.storageBuffer16BitAccess));
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_INT8) == (f16i8.shaderInt8 && s8.storageBuffer8BitAccess));
  CHECK(flag(PLAIDML_PLUGIN_DEVICE_FP16) ==
        (f16i8.shaderFloat16 && s16.storageBuffer16BitAccess));
  CHECK_FALSE(flag(PLAIDML_PLUGIN_DEVICE_UNIFIED_MEMORY));

  // Cooperative-matrix shapes only where the driver has the extension (lavapipe 22.3 has not);
  // each item then reads "f16:MxNxK".
  uint32_t extension_count = 0;
  vkEnumerateDeviceExtensionProperties(direct.physical, nullptr, &extension_count, nullptr);
  std::vector<VkExtensionProperties> extensions(extension_count);
  vkEnumerateDeviceExtensionProperties(direct.physical, nullptr, &extension_count,
                                       extensions.data());
  bool has_matrices = false;
  for (const VkExtensionProperties& e : extensions) {
    has_matrices = has_matrices || std::string(e.extensionName) == "VK_KHR_cooperative_matrix";
  }
  if (!has_matrices) {
    CHECK(info.matrix_shapes == nullptr);
  } else if (info.matrix_shapes != nullptr) {
    CHECK(std::string(info.matrix_shapes).rfind("f16:", 0) == 0);
  }
}

TEST_CASE("vulkan plugin: lavapipe is a cpu device with the expected limits") {
  const plaidml_plugin* p = vulkan_plugin();
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);
  if (std::string(info.name).find("llvmpipe") == std::string::npos) return;  // another driver
  CHECK(std::string(info.kind) == "cpu");
  CHECK(std::string(info.vendor) == "Mesa");
  CHECK(info.max_workgroup_size == 1024);
  CHECK(bool(info.flags & PLAIDML_PLUGIN_DEVICE_FP64));
  CHECK(bool(info.flags & PLAIDML_PLUGIN_DEVICE_INT64));
}

TEST_CASE("vulkan plugin: buffers round trip, with offsets, on both transfer paths") {
  for (const char* direct : {"1", "0"}) {
    INFO("direct_host_access = " << direct);
    OpenDevice dev(TestOptions{{"direct_host_access", direct}});
    std::vector<int32_t> values(1000);
    for (int i = 0; i < 1000; ++i) values[i] = i * 7 - 300;
    auto b = dev.buffer_with(values);
    CHECK(dev.read<int32_t>(b, 1000) == values);
    // A write into the middle leaves the rest alone; reads at odd offsets see bytes exactly.
    std::vector<int32_t> patch = {11, 22, 33};
    REQUIRE(dev.p()->write(dev.get(), b, 40, patch.data(), 12) == PLAIDML_PLUGIN_OK);
    auto all = dev.read<int32_t>(b, 1000);
    for (int i = 0; i < 1000; ++i) {
      int32_t want = i >= 10 && i < 13 ? patch[i - 10] : values[i];
      REQUIRE(all[i] == want);
    }
    uint8_t bytes[3] = {};
    REQUIRE(dev.p()->read(dev.get(), b, 41, bytes, 3) == PLAIDML_PLUGIN_OK);
    uint8_t expect[3];
    std::memcpy(expect, reinterpret_cast<const uint8_t*>(all.data()) + 41, 3);
    CHECK(std::memcmp(bytes, expect, 3) == 0);
    // An odd-sized buffer holds exactly its bytes.
    std::vector<uint8_t> odd = {1, 2, 3, 4, 5, 6, 7};
    auto o = dev.buffer_with(odd);
    CHECK(dev.read<uint8_t>(o, 7) == odd);
  }
}

TEST_CASE("vulkan plugin: large reads land exactly in unaligned memory, imported or staged") {
  // 1.2 MB, over kHostImportMinBytes: with host_import on (the default) lavapipe, which has
  // VK_EXT_external_memory_host, copies into the destination's pages, imported rounded out to
  // its alignment; off, through the staging buffer. Either way exactly the bytes asked for
  // change, at an odd buffer offset and a destination that starts and ends inside a page.
  constexpr size_t kCount = 300007;
  std::vector<int32_t> values(kCount);
  for (size_t i = 0; i < kCount; ++i) values[i] = static_cast<int32_t>(i * 13) - 7;
  for (const char* import : {"1", "0"}) {
    INFO("host_import = " << import);
    OpenDevice dev(TestOptions{{"direct_host_access", "0"}, {"host_import", import}});
    auto b = dev.buffer_with(values);
    std::vector<int32_t> host(kCount + 2048, -1);
    int32_t* destination = host.data() + 3;
    const size_t count = kCount - 2;
    REQUIRE(dev.p()->read(dev.get(), b, 8, destination, count * 4) == PLAIDML_PLUGIN_OK);
    for (size_t i = 0; i < count; ++i) REQUIRE(destination[i] == values[i + 2]);
    for (size_t i = 0; i < 3; ++i) CHECK(host[i] == -1);
    for (size_t i = 3 + count; i < host.size(); ++i) REQUIRE(host[i] == -1);
    // Reading again into the same pages (imported a second time) after a write sees the write.
    std::vector<int32_t> patch(1000, 42);
    REQUIRE(dev.p()->write(dev.get(), b, 4000, patch.data(), 4000) == PLAIDML_PLUGIN_OK);
    REQUIRE(dev.p()->read(dev.get(), b, 8, destination, count * 4) == PLAIDML_PLUGIN_OK);
    CHECK(destination[998] == 42);
    CHECK(destination[997] == values[999]);
    CHECK(destination[1998] == values[2000]);
  }
}

TEST_CASE("vulkan plugin: buffers allocated after frees of nearby sizes hold their own contents") {
  // 1000 and 1020 bytes share a size class (vk_memory_choice.h): the second buffer may be the
  // first one's memory, and holds exactly what was written to it.
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  for (int round = 0; round < 3; ++round) {
    const uint64_t bytes = round == 1 ? 1020 : 1000;
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + round);
    plaidml_plugin_buffer b = nullptr;
    REQUIRE(p->allocate(dev.get(), bytes, &b) == PLAIDML_PLUGIN_OK);
    REQUIRE(p->write(dev.get(), b, 0, data.data(), bytes) == PLAIDML_PLUGIN_OK);
    std::vector<uint8_t> back(bytes);
    REQUIRE(p->read(dev.get(), b, 0, back.data(), bytes) == PLAIDML_PLUGIN_OK);
    CHECK(back == data);
    p->free_buffer(dev.get(), b);
  }
  // Two live buffers of one class never share memory.
  auto x = dev.buffer_with(std::vector<float>(250, 1.0f));
  auto y = dev.buffer_with(std::vector<float>(250, 2.0f));
  CHECK(dev.read<float>(x, 250) == std::vector<float>(250, 1.0f));
  CHECK(dev.read<float>(y, 250) == std::vector<float>(250, 2.0f));
}

TEST_CASE("vulkan plugin: device-side copies, recorded and run before a read") {
  for (const char* direct : {"1", "0"}) {
    INFO("direct_host_access = " << direct);
    OpenDevice dev(TestOptions{{"direct_host_access", direct}});
    std::vector<float> a = ramp(64);
    auto src = dev.buffer_with(a);
    auto dst = dev.buffer_with(std::vector<float>(64, -1.0f));
    const plaidml_plugin* p = dev.p();
    REQUIRE(p->copy(dev.get(), src, 8 * 4, dst, 0, 16 * 4) == PLAIDML_PLUGIN_OK);
    REQUIRE(p->copy(dev.get(), dst, 0, dst, 32 * 4, 16 * 4) == PLAIDML_PLUGIN_OK);
    auto out = dev.read<float>(dst, 64);
    for (int i = 0; i < 64; ++i) {
      float want = i < 16 ? a[8 + i] : (i >= 32 && i < 48 ? a[8 + i - 32] : -1.0f);
      REQUIRE(out[i] == want);
    }
  }
}

TEST_CASE("vulkan plugin: bad options are rejected, unknown keys ignored") {
  const plaidml_plugin* p = vulkan_plugin();
  plaidml_plugin_option bad = {"fence_timeout_ms", "soon"};
  plaidml_plugin_device dev = nullptr;
  CHECK(p->open_device(0, &bad, 1, &dev) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "fence_timeout_ms must be a positive integer, got 'soon'");
  plaidml_plugin_option unknown = {"num_threads", "4"};
  REQUIRE(p->open_device(0, &unknown, 1, &dev) == PLAIDML_PLUGIN_OK);
  close_checked(p, dev);
}
