// Vulkan physical devices: the process-wide instance is created and its devices described once
// (the loader reads its driver list once too), so that describe_device can hand out strings that
// live as long as the module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/plugin_support/driver.h"
#include "devices/vulkan/vk_api.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// The optional shader features plaidml uses; a device gets exactly the supported ones enabled.
struct ShaderFeatures {
  bool float16 = false, float64 = false, int8 = false, int16 = false, int64 = false;
  bool storage8 = false, storage16 = false;
  bool cooperative_matrix = false;  // vk_cooperative_matrix.h: enabled with the memory model
  bool workgroup_matrix = false;    // and VK_NV_cooperative_matrix2 beside it
  bool pipeline_statistics = false;  // vk_pipeline_statistics.h: asked for, and present
  // Where the 8-bit / float16-int8 feature structs come from: core 1.2, an extension, or nowhere.
  bool has_8bit_struct = false, has_float16_int8_struct = false;
  std::vector<const char*> extensions;  // device extensions those structs need below 1.2
};

// What describe_device reports (target: "<device>|Vulkan <api>|driver <version>", memory_heaps:
// "2 GiB device-local, 62 GiB host"; one scalar lane per invocation), with the Vulkan facts the
// plugin works from.
struct VkDeviceRecord : plugin_support::DeviceRecord {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t api_version = 0;
  uint32_t queue_family = 0;  // one with compute
  uint64_t max_storage_buffer_range = 0;
  uint32_t max_workgroup_dims[3] = {1, 1, 1};
  uint32_t max_group_count[3] = {1, 1, 1};
  uint32_t max_storage_buffers_per_stage = 0;
  ShaderFeatures features;
  VkPhysicalDeviceMemoryProperties memory{};
  // VK_EXT_external_memory_host's minimum host-pointer alignment; 0 without the extension
  // (vk_host_import.h).
  uint64_t host_import_alignment = 0;
};

// The devices (VkDeviceRecords), or why there are none, and the instance they came from.
struct VkInventory : plugin_support::Inventory {
  VkInstance instance = VK_NULL_HANDLE;
};

// The instance and every usable device. Thread-safe; computed on first use.
const VkInventory& inventory();

// Describes one physical device (vk_describe.cc); false when it cannot run compute shaders
// (no compute queue, Vulkan below 1.1), with the reason in *why.
bool describe_physical_device(VkInstance instance, VkPhysicalDevice physical, VkDeviceRecord* out,
                              std::string* why);

}  // namespace plaidml::devices::vulkan
