// describe_physical_device: a VkPhysicalDevice's properties, features and memory heaps as plaidml
// sees them (vk_inventory.h).
#include <cstdio>
#include <cstring>
#include <vector>

#include "devices/vulkan/vk_cooperative_matrix.h"
#include "devices/vulkan/vk_host_import.h"
#include "devices/vulkan/vk_inventory.h"
#include "devices/vulkan/vk_pipeline_statistics.h"

namespace plaidml::devices::vulkan {
namespace {

const char* kind_of(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "accelerator";
  }
}

// Vulkan reports PCI vendor ids (or Khronos ids for non-PCI vendors), not names.
std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x10DE: return "NVIDIA Corporation";
    case 0x1002: return "Advanced Micro Devices, Inc.";
    case 0x8086: return "Intel Corporation";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x1010: return "Imagination Technologies";
    case VK_VENDOR_ID_MESA: return "Mesa";
    default: break;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "vendor 0x%04X", id);
  return buf;
}

std::string version_text(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
         "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string size_text(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t(1) << 30)) {
    std::snprintf(buf, sizeof(buf), "%.3g GiB", double(bytes) / double(uint64_t(1) << 30));
  } else {
    std::snprintf(buf, sizeof(buf), "%.3g MiB", double(bytes) / double(uint64_t(1) << 20));
  }
  return buf;
}

std::vector<std::string> device_extensions(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vk().vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> props(count);
  vk().vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, props.data());
  std::vector<std::string> names;
  for (const auto& p : props) names.push_back(p.extensionName);
  return names;
}

bool has(const std::vector<std::string>& list, const char* name) {
  for (const auto& s : list) {
    if (s == name) return true;
  }
  return false;
}

bool pick_compute_queue(VkPhysicalDevice physical, uint32_t* out) {
  uint32_t count = 0;
  vk().vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vk().vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      *out = i;
      return true;
    }
  }
  return false;
}

void read_features(VkDeviceRecord* r, const std::vector<std::string>& extensions) {
  ShaderFeatures& f = r->features;
  bool core12 = r->api_version >= VK_API_VERSION_1_2;
  f.has_8bit_struct = core12 || has(extensions, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  f.has_float16_int8_struct = core12 || has(extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  if (!core12 && f.has_8bit_struct) f.extensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  if (!core12 && f.has_float16_int8_struct) {
    f.extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDevice8BitStorageFeatures storage8{};
  storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{};
  f16i8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &storage16;
  void** tail = &storage16.pNext;
  if (f.has_8bit_struct) *tail = &storage8, tail = &storage8.pNext;
  if (f.has_float16_int8_struct) *tail = &f16i8, tail = &f16i8.pNext;
  vk().vkGetPhysicalDeviceFeatures2(r->physical, &features);
  f.storage16 = storage16.storageBuffer16BitAccess;
  f.storage8 = storage8.storageBuffer8BitAccess;
  f.float16 = f16i8.shaderFloat16 && f.storage16;
  f.int8 = f16i8.shaderInt8 && f.storage8;
  f.int16 = features.features.shaderInt16 && f.storage16;
  f.float64 = features.features.shaderFloat64;
  f.int64 = features.features.shaderInt64;
  r->flags |= PLAIDML_PLUGIN_DEVICE_INT_LIMITS;
  if (f.float16) r->flags |= PLAIDML_PLUGIN_DEVICE_FP16;
  if (f.float64) r->flags |= PLAIDML_PLUGIN_DEVICE_FP64;
  if (f.int8) r->flags |= PLAIDML_PLUGIN_DEVICE_INT8;
  if (f.int16) r->flags |= PLAIDML_PLUGIN_DEVICE_INT16;
  if (f.int64) r->flags |= PLAIDML_PLUGIN_DEVICE_INT64;
}

void read_memory(VkDeviceRecord* r, uint64_t max_allocation) {
  vk().vkGetPhysicalDeviceMemoryProperties(r->physical, &r->memory);
  uint64_t largest_local_heap = 0;
  for (uint32_t i = 0; i < r->memory.memoryHeapCount; ++i) {
    const VkMemoryHeap& heap = r->memory.memoryHeaps[i];
    bool local = heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    if (!r->memory_heaps.empty()) r->memory_heaps += ", ";
    r->memory_heaps += size_text(heap.size) + (local ? " device-local" : " host");
    if (local) {
      r->memory_bytes += heap.size;
      largest_local_heap = std::max<uint64_t>(largest_local_heap, heap.size);
    }
  }
  r->max_allocation_bytes = max_allocation ? max_allocation : largest_local_heap;
}

void read_properties(VkDeviceRecord* r, const std::vector<std::string>& extensions) {
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceMaintenance3Properties maintenance3{};
  maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  subgroup.pNext = &maintenance3;
  // NVIDIA says how many SMs it has; other vendors leave compute_units unknown (1).
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{};
  sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  if (has(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) maintenance3.pNext = &sm;
  // Float controls are core in 1.2 (no extension to enable): kernels may then ask that
  // signed zeros, inf and NaN be preserved, which drivers otherwise may fold away.
  VkPhysicalDeviceFloatControlsProperties float_controls{};
  float_controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  bool core12 = r->api_version >= VK_API_VERSION_1_2;
  if (core12) float_controls.pNext = subgroup.pNext, subgroup.pNext = &float_controls;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &subgroup;
  vk().vkGetPhysicalDeviceProperties2(r->physical, &props);
  const VkPhysicalDeviceProperties& p = props.properties;
  const VkPhysicalDeviceLimits& l = p.limits;
  r->name = p.deviceName;
  r->vendor = vendor_name(p.vendorID);
  r->kind = kind_of(p.deviceType);
  r->artifact_formats = "spirv";
  r->vector_bits = 32;  // one scalar lane per invocation
  r->target = r->name + "|Vulkan " + version_text(p.apiVersion) + "|driver " +
              std::to_string(p.driverVersion);
  r->local_memory_bytes = l.maxComputeSharedMemorySize;
  r->max_workgroup_size = std::max<uint32_t>(1, l.maxComputeWorkGroupInvocations);
  for (int d = 0; d < 3; ++d) {
    r->max_workgroup_dims[d] = l.maxComputeWorkGroupSize[d];
    r->max_group_count[d] = l.maxComputeWorkGroupCount[d];
  }
  r->max_storage_buffer_range = l.maxStorageBufferRange;
  r->max_storage_buffers_per_stage = l.maxPerStageDescriptorStorageBuffers;
  r->subgroup_size = subgroup.subgroupSize;
  if (core12 && float_controls.shaderSignedZeroInfNanPreserveFloat32) {
    r->flags |= PLAIDML_PLUGIN_DEVICE_IEEE_FLOAT_CONTROLS;
  }
  r->compute_units = std::max<uint32_t>(1, sm.shaderSMCount);
  read_memory(r, maintenance3.maxMemoryAllocationSize);
}

}  // namespace

bool describe_physical_device(VkInstance instance, VkPhysicalDevice physical, VkDeviceRecord* out,
                              std::string* why) {
  VkPhysicalDeviceProperties basic{};
  vk().vkGetPhysicalDeviceProperties(physical, &basic);
  if (basic.apiVersion < VK_API_VERSION_1_1) {
    *why = std::string(basic.deviceName) + " supports only Vulkan " +
           version_text(basic.apiVersion) + " (1.1 is needed)";
    return false;
  }
  out->physical = physical;
  out->api_version = basic.apiVersion;
  if (!pick_compute_queue(physical, &out->queue_family)) {
    *why = std::string(basic.deviceName) + " has no compute queue";
    return false;
  }
  std::vector<std::string> extensions = device_extensions(physical);
  read_properties(out, extensions);
  read_features(out, extensions);
  read_cooperative_matrix(instance, out, extensions);
  read_pipeline_statistics(out, extensions);
  read_host_import(out, has(extensions, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME));
  return true;
}

}  // namespace plaidml::devices::vulkan
