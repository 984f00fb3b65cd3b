// The opaque handle types of include/plaidml/plugin.h, defined for Vulkan.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_inventory.h"

namespace plaidml::devices::vulkan {

// A VkBuffer with its own memory; `mapped` is set when that memory is host-visible.
struct VkAllocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  uint64_t size = 0;  // of the VkBuffer (at least 4 bytes)
};

// The command buffer that launches and copies are recorded into until the next flush
// (vk_commands.h): all kernels of a program go to the device in one submit.
struct DescriptorPool {
  VkDescriptorPool pool = VK_NULL_HANDLE;
  uint32_t max_sets = 0, max_descriptors = 0;
  uint32_t sets_used = 0, descriptors_used = 0;  // since the last flush
};

struct CommandBatch {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  bool recording = false;
  size_t recorded = 0;  // commands since begin
  // Descriptor sets live until the flush that runs their dispatches, then their pools reset.
  std::vector<DescriptorPool> descriptor_pools;
};

}  // namespace plaidml::devices::vulkan

// One opened device: a VkDevice with one compute queue. Every call on it takes `mutex`, so
// launches from several threads are recorded one after the other.
struct plaidml_plugin_device_s {
  const plaidml::devices::vulkan::VkDeviceRecord* record = nullptr;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t buffer_memory_type = 0;   // device-local where there is one
  uint32_t staging_memory_type = 0;  // host-visible and coherent
  bool direct_host_access = false;   // buffer memory is host-visible: no staging copies
  uint64_t fence_timeout_ns = 60ull * 1000 * 1000 * 1000;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;

  std::mutex mutex;
  plaidml::devices::vulkan::CommandBatch batch;
  plaidml::devices::vulkan::VkAllocation staging;
  // Set when the device was lost or a submit did not finish in time: every later call fails
  // with it.
  std::string broken;
  // A submit outlived its time limit and may still run: what it may use is not destroyed by
  // free_buffer/unload but kept here until close_device sees the device idle (vk_commands.h).
  bool submit_pending = false;
  std::vector<plaidml::devices::vulkan::VkAllocation> deferred_allocations;
  std::vector<plaidml_plugin_executable> deferred_executables;
};

struct plaidml_plugin_buffer_s {
  plaidml::devices::vulkan::VkAllocation allocation;
  uint64_t size = 0;  // as requested (0 allowed)
};

struct plaidml_plugin_executable_s {
  // The layout of a pipeline that binds storage buffers at set 0, bindings [0, n).
  struct Layout {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
  };
  VkShaderModule module = VK_NULL_HANDLE;
  std::map<uint32_t, Layout> layouts;  // by n, shared by the pipelines that bind n buffers
  // Parallel to the symbols given to load: each kernel binds only the buffers its entry point
  // uses (bindings[k] of them), so a module may hold more kernels than a stage may bind.
  std::vector<VkPipeline> pipelines;
  std::vector<std::string> symbols;
  std::vector<uint32_t> bindings;
};
