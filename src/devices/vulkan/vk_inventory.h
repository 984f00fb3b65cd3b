// Vulkan physical devices: the process-wide instance is created and its devices described once
// (the loader reads its driver list once too), so that describe_device can hand out strings that
// live as long as the module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// The optional shader features plaidml uses; a device gets exactly the supported ones enabled.
struct ShaderFeatures {
  bool float16 = false, float64 = false, int8 = false, int16 = false, int64 = false;
  bool storage8 = false, storage16 = false;
  // Where the 8-bit / float16-int8 feature structs come from: core 1.2, an extension, or nowhere.
  bool has_8bit_struct = false, has_float16_int8_struct = false;
  std::vector<const char*> extensions;  // device extensions those structs need below 1.2
};

struct VkDeviceRecord {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t api_version = 0;
  uint32_t queue_family = 0;  // one with compute
  std::string name;
  std::string vendor;
  std::string kind;          // "gpu", "cpu", "accelerator"
  std::string target;        // "<device>|Vulkan <api>|driver <version>"
  std::string memory_heaps;  // "2 GiB device-local, 62 GiB host"
  uint64_t memory_bytes = 0;
  uint64_t max_allocation_bytes = 0;
  uint64_t local_memory_bytes = 0;
  uint64_t max_storage_buffer_range = 0;
  uint32_t max_workgroup_size = 1;
  uint32_t max_workgroup_dims[3] = {1, 1, 1};
  uint32_t max_group_count[3] = {1, 1, 1};
  uint32_t max_storage_buffers_per_stage = 0;
  uint32_t compute_units = 1;
  uint32_t subgroup_size = 0;
  uint32_t flags = 0;  // PLAIDML_PLUGIN_DEVICE_*
  ShaderFeatures features;
  VkPhysicalDeviceMemoryProperties memory{};
};

struct VkInventory {
  plaidml_plugin_status status = PLAIDML_PLUGIN_OK;
  std::string error;  // why there are no devices, when status is not OK
  VkInstance instance = VK_NULL_HANDLE;
  std::vector<VkDeviceRecord> devices;
};

// The instance and every usable device. Thread-safe; computed on first use.
const VkInventory& inventory();

// The record of device `index`, or a NOT_FOUND / no-driver failure (message recorded).
plaidml_plugin_status find_device(uint32_t index, const VkDeviceRecord** out);

// Copies a record into the caller's info, up to the caller's struct_size.
void fill_device_info(const VkDeviceRecord& record, plaidml_plugin_device_info* info);

// Describes one physical device (vk_describe.cc); false when it cannot run compute shaders
// (no compute queue, Vulkan below 1.1), with the reason in *why.
bool describe_physical_device(VkPhysicalDevice physical, VkDeviceRecord* out, std::string* why);

}  // namespace plaidml::devices::vulkan
