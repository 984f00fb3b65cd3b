// Device buffers and host <-> device copies. Buffers live in device-local memory (freed ones are
// kept for reuse: vk_allocation_cache.h); write/read map it where it is host-visible, a large
// read copies straight into the caller's pages where the device can import them
// (vk_host_import.h), and otherwise both copy through the device's staging buffer in chunks.
// Both first run the recorded launches, so they see (and do not disturb) the work issued before
// them; copy is recorded among the launches.

#include <algorithm>
#include <cstring>
#include <memory>

#include "devices/vulkan/vk_allocation_cache.h"
#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_exit.h"
#include "devices/vulkan/vk_handles.h"
#include "devices/vulkan/vk_host_import.h"
#include "devices/vulkan/vk_memory.h"

namespace plaidml::devices::vulkan {
namespace {

// Staging copies move at most this much per submit, so a huge tensor needs no huge host buffer.
constexpr uint64_t kStagingChunk = 16ull << 20;

plaidml_plugin_status ensure_staging(VkDeviceState* device, uint64_t bytes) {
  if (device->staging.size >= bytes) return PLAIDML_PLUGIN_OK;
  destroy_allocation(device->device, &device->staging);
  return create_allocation(device, bytes, device->staging_memory_type, &device->staging);
}

plaidml_plugin_status record_copy(VkDeviceState* device, VkBuffer src, uint64_t src_offset,
                                  VkBuffer dst, uint64_t dst_offset, uint64_t bytes) {
  VkCommandBuffer commands = VK_NULL_HANDLE;
  if (auto s = begin_batch(device, &commands); s != PLAIDML_PLUGIN_OK) return s;
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vk().vkCmdCopyBuffer(commands, src, dst, 1, &region);
  record_barrier(device);
  return PLAIDML_PLUGIN_OK;
}

// One staged transfer of at most kStagingChunk bytes; to_device picks the direction.
plaidml_plugin_status staged_chunk(VkDeviceState* device, VulkanBuffer* buffer,
                                   uint64_t offset, uint8_t* host, uint64_t bytes, bool to_device) {
  if (auto s = ensure_staging(device, std::min(kStagingChunk, bytes)); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  if (to_device) std::memcpy(device->staging.mapped, host, bytes);
  VkBuffer staging = device->staging.buffer, target = buffer->allocation.buffer;
  plaidml_plugin_status s = to_device ? record_copy(device, staging, 0, target, offset, bytes)
                                      : record_copy(device, target, offset, staging, 0, bytes);
  if (s == PLAIDML_PLUGIN_OK) s = flush(device);
  if (s != PLAIDML_PLUGIN_OK) return s;
  if (!to_device) std::memcpy(host, device->staging.mapped, bytes);
  return PLAIDML_PLUGIN_OK;
}

// Moves bytes between host memory and the buffer, with device->mutex held.
plaidml_plugin_status transfer(VkDeviceState* device, VulkanBuffer* buffer,
                               uint64_t offset, uint8_t* host, uint64_t bytes, bool to_device) {
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  // Launches recorded before this call read the old contents or write what a read wants.
  if (auto s = flush(device); s != PLAIDML_PLUGIN_OK) return s;
  if (uint8_t* mapped = static_cast<uint8_t*>(buffer->allocation.mapped);
      mapped && (to_device ? device->direct_host_writes : device->direct_host_reads)) {
    if (to_device) {
      std::memcpy(mapped + offset, host, bytes);
    } else {
      std::memcpy(host, mapped + offset, bytes);
    }
    return PLAIDML_PLUGIN_OK;
  }
  if (HostImport import; !to_device && import_host_range(device, host, bytes, &import)) {
    plaidml_plugin_status s =
        record_copy(device, buffer->allocation.buffer, offset, import.buffer, import.offset, bytes);
    if (s == PLAIDML_PLUGIN_OK) s = flush(device);
    if (device->submit_pending) {
      // A copy that did not finish in time may still write those pages: they stay imported
      // (pinned) until close_device sees the device idle, like a buffer a late submit uses.
      device->deferred_allocations.push_back(
          VkAllocation{import.buffer, import.memory, nullptr, 0});
    } else {
      release_host_import(device->device, &import);
    }
    return s;
  }
  for (uint64_t done = 0; done < bytes;) {
    uint64_t n = std::min(kStagingChunk, bytes - done);
    if (auto s = staged_chunk(device, buffer, offset + done, host + done, n, to_device);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    done += n;
  }
  return PLAIDML_PLUGIN_OK;
}

VulkanBuffer& vulkan_buffer(plugin_support::Buffer& buffer) {
  return static_cast<VulkanBuffer&>(buffer);
}

}  // namespace

plaidml_plugin_status VulkanDevice::allocate(uint64_t bytes,
                                             std::unique_ptr<plugin_support::Buffer>* out) {
  VkDeviceState* device = state_.get();
  std::lock_guard<std::mutex> lock(device->mutex);
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  auto buffer = std::make_unique<VulkanBuffer>(bytes);
  if (auto s = allocate_buffer_memory(device, bytes, &buffer->allocation); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  if (auto s = check_validation(); s != PLAIDML_PLUGIN_OK) {
    destroy_allocation(device->device, &buffer->allocation);
    return s;
  }
  *out = std::move(buffer);
  return PLAIDML_PLUGIN_OK;
}

void VulkanDevice::free_buffer(std::unique_ptr<plugin_support::Buffer> buffer) {
  if (process_exiting()) {  // the driver may be gone (vk_exit.h)
    abandon(buffer.release());
    return;
  }
  VkDeviceState* device = state_.get();
  std::lock_guard<std::mutex> lock(device->mutex);
  // Recorded launches may use it: they run first. A submit still running past its time limit
  // may use it too: then it goes when the device closes.
  flush(device);
  VkAllocation& allocation = vulkan_buffer(*buffer).allocation;
  if (device->submit_pending) {
    device->deferred_allocations.push_back(allocation);
  } else {
    release_buffer_memory(device, &allocation);
  }
}

plaidml_plugin_status VulkanDevice::write(plugin_support::Buffer& buffer, uint64_t offset,
                                          const void* data, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto* host = static_cast<uint8_t*>(const_cast<void*>(data));  // only read: to_device
  return transfer(state_.get(), &vulkan_buffer(buffer), offset, host, bytes, /*to_device=*/true);
}

plaidml_plugin_status VulkanDevice::read(plugin_support::Buffer& buffer, uint64_t offset,
                                         void* data, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return transfer(state_.get(), &vulkan_buffer(buffer), offset, static_cast<uint8_t*>(data),
                  bytes, /*to_device=*/false);
}

plaidml_plugin_status VulkanDevice::copy(plugin_support::Buffer& src, uint64_t src_offset,
                                         plugin_support::Buffer& dst, uint64_t dst_offset,
                                         uint64_t bytes) {
  VkDeviceState* device = state_.get();
  std::lock_guard<std::mutex> lock(device->mutex);
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  // Recorded among the launches: ordered by the barriers, run at the next flush.
  return record_copy(device, vulkan_buffer(src).allocation.buffer, src_offset,
                     vulkan_buffer(dst).allocation.buffer, dst_offset, bytes);
}

}  // namespace plaidml::devices::vulkan
