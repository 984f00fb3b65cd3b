// Opening and closing Vulkan devices.
#include "devices/vulkan/vk_device.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "devices/vulkan/vk_allocation_cache.h"
#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_cooperative_matrix.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_exit.h"
#include "devices/vulkan/vk_host_import.h"
#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_pipeline_statistics.h"
#include "devices/vulkan/vk_program.h"

namespace plaidml::devices::vulkan {
namespace {

struct OpenOptions {
  bool direct_host_access = true;
  bool host_import = true;
  uint64_t fence_timeout_ms = 60000;
};

plaidml_plugin_status parse_options(const plugin_support::Options& options, OpenOptions* out) {
  for (const auto& [key, value] : options) {
    if (key == "direct_host_access") {
      out->direct_host_access = value != "0";
    } else if (key == "host_import") {
      out->host_import = value != "0";
    } else if (key == "fence_timeout_ms") {
      char* end = nullptr;
      unsigned long long ms = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end || ms == 0) {
        return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                    "fence_timeout_ms must be a positive integer, got '" + value + "'");
      }
      out->fence_timeout_ms = ms;
    }
  }
  return PLAIDML_PLUGIN_OK;
}

// The logical device with exactly the shader features the record reports (vk_describe.cc).
VkResult create_logical_device(const VkDeviceRecord& r, VkDevice* out) {
  const ShaderFeatures& f = r.features;
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  storage16.storageBuffer16BitAccess = f.float16 || f.int16;
  VkPhysicalDevice8BitStorageFeatures storage8{};
  storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  storage8.storageBuffer8BitAccess = f.int8;
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{};
  f16i8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  f16i8.shaderFloat16 = f.float16;
  f16i8.shaderInt8 = f.int8;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.shaderFloat64 = f.float64;
  features.features.shaderInt64 = f.int64;
  features.features.shaderInt16 = f.int16;
  features.pNext = &storage16;
  void** tail = &storage16.pNext;
  if (f.has_8bit_struct) *tail = &storage8, tail = &storage8.pNext;
  if (f.has_float16_int8_struct) *tail = &f16i8, tail = &f16i8.pNext;
  CooperativeMatrixEnable matrix;
  matrix.matrix.cooperativeMatrix = VK_TRUE;
  matrix.memory_model.vulkanMemoryModel = VK_TRUE;
  if (f.cooperative_matrix) tail = matrix.chain(tail, f.workgroup_matrix);
  PipelineStatisticsEnable statistics;
  if (f.pipeline_statistics) tail = statistics.chain(tail);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = r.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = static_cast<uint32_t>(f.extensions.size());
  info.ppEnabledExtensionNames = f.extensions.data();
  return vk().vkCreateDevice(r.physical, &info, nullptr, out);
}

plaidml_plugin_status create_pipeline_cache(VkDeviceState* d) {
  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  VkResult r = vk().vkCreatePipelineCache(d->device, &info, nullptr, &d->pipeline_cache);
  if (r != VK_SUCCESS) return fail_vk("vkCreatePipelineCache", r, d->record->name);
  return PLAIDML_PLUGIN_OK;
}

// Destroys what open_device created; `idle`: the device runs nothing any more.
void release(VkDeviceState* d, bool idle) {
  if (d->device && idle) {
    for (VkAllocation& a : d->deferred_allocations) destroy_allocation(d->device, &a);
    for (VulkanExecutable* e : d->deferred_executables) release_executable(d->device, e);
    destroy_allocation(d->device, &d->staging);
    clear_allocation_cache(d);
    destroy_batches(d);
    if (d->pipeline_cache) vk().vkDestroyPipelineCache(d->device, d->pipeline_cache, nullptr);
    vk().vkDestroyDevice(d->device, nullptr);
  }
  // A device that may still run a submit is leaked: destroying it could hang or crash.
  delete d;
}

plaidml_plugin_status init_device(VkDeviceState* d, const OpenOptions& options) {
  VkResult r = create_logical_device(*d->record, &d->device);
  if (r != VK_SUCCESS) return fail_vk("vkCreateDevice", r, d->record->name);
  watch_process_exit();
  vk().vkGetDeviceQueue(d->device, d->record->queue_family, 0, &d->queue);
  d->fence_timeout_ns = options.fence_timeout_ms * 1000 * 1000;
  if (auto s = choose_memory_types(d, options.direct_host_access); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  enable_host_import(d, options.host_import);
  if (auto s = fence_spin_ns(*d->record, &d->fence_spin_ns); s != PLAIDML_PLUGIN_OK) return s;
  if (auto s = create_batches(d); s != PLAIDML_PLUGIN_OK) return s;
  return create_pipeline_cache(d);
}

}  // namespace

plaidml_plugin_status open_device(const VkDeviceRecord& record,
                                  const plugin_support::Options& options,
                                  std::unique_ptr<plugin_support::Device>* out) {
  OpenOptions parsed;
  if (auto s = parse_options(options, &parsed); s != PLAIDML_PLUGIN_OK) return s;
  auto d = std::make_unique<VkDeviceState>();
  d->record = &record;
  plaidml_plugin_status s = init_device(d.get(), parsed);
  if (s == PLAIDML_PLUGIN_OK) s = check_validation();
  if (s != PLAIDML_PLUGIN_OK) {
    release(d.release(), true);
    return s;
  }
  *out = std::make_unique<VulkanDevice>(std::move(d));
  return PLAIDML_PLUGIN_OK;
}

VulkanDevice::~VulkanDevice() {
  VkDeviceState* device = state_.release();
  if (process_exiting()) {  // the driver may be gone (vk_exit.h)
    abandon(device);
    return;
  }
  bool idle = false;
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    // Recorded work runs before the device goes (the scaffold frees buffers first, but a caller
    // may close without synchronizing). A device still running a timed-out submit gets a grace
    // period; one that does not finish even then is leaked rather than waited on forever.
    flush(device);
    idle = settle_for_close(device);
  }
  release(device, idle);
}

}  // namespace plaidml::devices::vulkan
