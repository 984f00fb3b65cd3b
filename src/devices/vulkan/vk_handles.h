// The Vulkan device, buffer and executable behind the plugin scaffold's handles
// (devices/plugin_support/driver.h), and the device's state that the Vulkan calls share. The
// scaffold has checked every argument before a method here runs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/plugin_support/driver.h"
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

// Freed buffers kept for reuse, by size (vk_allocation_cache.h).
struct AllocationCache {
  std::multimap<uint64_t, VkAllocation> by_size;
  uint64_t bytes = 0;
};

// Descriptor sets live until the fence of the batch that runs their dispatches signals, then
// their pools reset.
struct DescriptorPool {
  VkDescriptorPool pool = VK_NULL_HANDLE;
  uint32_t max_sets = 0, max_descriptors = 0;
  uint32_t sets_used = 0, descriptors_used = 0;  // since the batch began
};

// One command buffer that launches and copies are recorded into, then submitted with its fence
// (vk_commands.h).
struct CommandBatch {
  enum class State { kIdle, kRecording, kSubmitted };
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  State state = State::kIdle;
  size_t recorded = 0;  // commands since begin
  double work = 0;      // the launches' estimated scalar operations since begin
  // The kernels recorded since begin, in order: a lost device or a late submit names them.
  // Their executables' own names: unload and close flush before an executable goes.
  std::vector<const std::string*> kernels;
  std::vector<DescriptorPool> descriptor_pools;
};

// The batches of a device, used in turn: while the device runs the submitted ones the host
// records the next, so a program's kernels start on the device before the last is recorded.
inline constexpr size_t kBatchesInFlight = 4;
struct CommandRing {
  CommandBatch batches[kBatchesInFlight];
  size_t current = 0;    // the batch recording, or the next to record
  size_t submitted = 0;  // how many batches before `current` are submitted and not waited for
  // The recording batch is submitted once it holds this many commands; it doubles with each
  // early submit and starts small again once the device is idle (vk_commands.cc).
  size_t submit_at = 0;
};

class VulkanExecutable;

// One opened device: a VkDevice with one compute queue. Every call on it takes `mutex`, so
// launches from several threads are recorded one after the other.
struct VkDeviceState {
  const VkDeviceRecord* record = nullptr;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t buffer_memory_type = 0;   // device-local where there is one
  uint32_t staging_memory_type = 0;  // host-visible and coherent
  // Buffer memory is host-visible: writes copy into its mapping, and reads copy out of it where
  // the host caches that memory (vk_memory_choice.h); otherwise through staging copies.
  bool direct_host_writes = false;
  bool direct_host_reads = false;
  uint64_t fence_timeout_ns = 60ull * 1000 * 1000 * 1000;
  uint64_t fence_spin_ns = 0;  // how long a wait polls its fence before sleeping (vk_commands.h)
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  // Set where large reads import the destination's pages (vk_host_import.h).
  PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties = nullptr;

  std::mutex mutex;
  CommandRing ring;
  VkAllocation staging;
  AllocationCache allocation_cache;
  // Set when the device was lost or a submit did not finish in time: every later call fails
  // with it.
  std::string broken;
  // A submit outlived its time limit and may still run: what it may use is not destroyed by
  // free_buffer/unload but kept here until close_device sees the device idle (vk_commands.h).
  bool submit_pending = false;
  std::vector<VkAllocation> deferred_allocations;
  std::vector<VulkanExecutable*> deferred_executables;
};

class VulkanBuffer : public plugin_support::Buffer {
 public:
  using Buffer::Buffer;
  VkAllocation allocation;
};

class VulkanExecutable : public plugin_support::Executable {
 public:
  using Executable::Executable;
  // The layout of a pipeline that binds storage buffers at set 0, bindings [0, n).
  struct Layout {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
  };
  std::vector<VkShaderModule> modules;  // the artifact's modules (one per kernel from plaidml)
  std::map<uint32_t, Layout> layouts;  // by n, shared by the pipelines that bind n buffers
  // Parallel to the symbols given to load: each kernel binds only the buffers its entry point
  // uses (bindings[k] of them), so a module may hold more kernels than a stage may bind.
  std::vector<VkPipeline> pipelines;
  std::vector<uint32_t> bindings;
};

// An opened device for the scaffold: the state above, which at process exit is abandoned
// rather than destroyed (vk_exit.h).
class VulkanDevice : public plugin_support::Device {
 public:
  explicit VulkanDevice(std::unique_ptr<VkDeviceState> state)
      : Device(*state->record), state_(std::move(state)) {}
  ~VulkanDevice() override;  // vk_device.cc

  // vk_buffer.cc
  plaidml_plugin_status allocate(uint64_t bytes,
                                 std::unique_ptr<plugin_support::Buffer>* out) override;
  void free_buffer(std::unique_ptr<plugin_support::Buffer> buffer) override;
  plaidml_plugin_status write(plugin_support::Buffer& buffer, uint64_t offset, const void* data,
                              uint64_t bytes) override;
  plaidml_plugin_status read(plugin_support::Buffer& buffer, uint64_t offset, void* data,
                             uint64_t bytes) override;
  plaidml_plugin_status copy(plugin_support::Buffer& src, uint64_t src_offset,
                             plugin_support::Buffer& dst, uint64_t dst_offset,
                             uint64_t bytes) override;
  // vk_program.cc
  plaidml_plugin_status load(std::string_view format, const void* bytes, uint64_t num_bytes,
                             std::vector<std::string> symbols,
                             std::unique_ptr<plugin_support::Executable>* out) override;
  void unload(std::unique_ptr<plugin_support::Executable> executable) override;
  // vk_launch.cc
  plaidml_plugin_status launch(plugin_support::Executable& executable,
                               const plaidml_plugin_launch_info& info,
                               const std::vector<plugin_support::Buffer*>& buffers) override;
  plaidml_plugin_status synchronize() override;

 private:
  std::unique_ptr<VkDeviceState> state_;
};

}  // namespace plaidml::devices::vulkan
