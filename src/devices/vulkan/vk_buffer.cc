#include "devices/vulkan/vk_buffer.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_exit.h"
#include "devices/vulkan/vk_memory.h"

namespace plaidml::devices::vulkan {
namespace {

// Staging copies move at most this much per submit, so a huge tensor needs no huge host buffer.
constexpr uint64_t kStagingChunk = 16ull << 20;

// [offset, offset + bytes) inside the buffer, without overflow.
plaidml_plugin_status check_range(const char* what, plaidml_plugin_buffer buffer, uint64_t offset,
                                  uint64_t bytes) {
  if (!buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(what) + ": buffer is NULL");
  if (offset > buffer->size || bytes > buffer->size - offset) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                    std::to_string(offset) + " is outside the buffer of " +
                    std::to_string(buffer->size) + " bytes");
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status ensure_staging(plaidml_plugin_device device, uint64_t bytes) {
  if (device->staging.size >= bytes) return PLAIDML_PLUGIN_OK;
  destroy_allocation(device->device, &device->staging);
  return create_allocation(device, bytes, device->staging_memory_type, &device->staging);
}

void record_copy(plaidml_plugin_device device, VkBuffer src, uint64_t src_offset, VkBuffer dst,
                 uint64_t dst_offset, uint64_t bytes) {
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vk().vkCmdCopyBuffer(device->batch.commands, src, dst, 1, &region);
  record_barrier(device);
}

// One staged transfer of at most kStagingChunk bytes; to_device picks the direction.
plaidml_plugin_status staged_chunk(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                                   uint64_t offset, uint8_t* host, uint64_t bytes, bool to_device) {
  if (auto s = ensure_staging(device, std::min(kStagingChunk, bytes)); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  if (to_device) std::memcpy(device->staging.mapped, host, bytes);
  if (auto s = begin_batch(device); s != PLAIDML_PLUGIN_OK) return s;
  VkBuffer staging = device->staging.buffer, target = buffer->allocation.buffer;
  if (to_device) {
    record_copy(device, staging, 0, target, offset, bytes);
  } else {
    record_copy(device, target, offset, staging, 0, bytes);
  }
  if (auto s = flush(device); s != PLAIDML_PLUGIN_OK) return s;
  if (!to_device) std::memcpy(host, device->staging.mapped, bytes);
  return PLAIDML_PLUGIN_OK;
}

// Moves bytes between host memory and the buffer, with device->mutex held.
plaidml_plugin_status transfer(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                               uint64_t offset, uint8_t* host, uint64_t bytes, bool to_device) {
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  // Launches recorded before this call read the old contents or write what a read wants.
  if (auto s = flush(device); s != PLAIDML_PLUGIN_OK) return s;
  if (uint8_t* mapped = static_cast<uint8_t*>(buffer->allocation.mapped);
      mapped && device->direct_host_access) {
    if (to_device) {
      std::memcpy(mapped + offset, host, bytes);
    } else {
      std::memcpy(host, mapped + offset, bytes);
    }
    return PLAIDML_PLUGIN_OK;
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

}  // namespace

plaidml_plugin_status allocate(plaidml_plugin_device device, uint64_t bytes,
                               plaidml_plugin_buffer* out_buffer) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (!out_buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_buffer is NULL");
    const uint64_t max = device->record->max_allocation_bytes;
    if (max && bytes > max) {
      return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY,
                  "cannot allocate " + std::to_string(bytes) + " bytes on " +
                      device->record->name + ": its largest allocation is " +
                      std::to_string(max) + " bytes");
    }
    std::lock_guard<std::mutex> lock(device->mutex);
    if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
    auto buffer = std::make_unique<plaidml_plugin_buffer_s>();
    buffer->size = bytes;
    if (auto s = create_allocation(device, bytes, device->buffer_memory_type, &buffer->allocation);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (auto s = check_validation(); s != PLAIDML_PLUGIN_OK) {
      destroy_allocation(device->device, &buffer->allocation);
      return s;
    }
    *out_buffer = buffer.release();
    return PLAIDML_PLUGIN_OK;
  });
}

void free_buffer(plaidml_plugin_device device, plaidml_plugin_buffer buffer) {
  if (!device || !buffer) return;
  if (process_exiting()) {  // the driver may be gone (vk_exit.h)
    abandon(buffer);
    return;
  }
  std::lock_guard<std::mutex> lock(device->mutex);
  // Recorded launches may use it: they run first. A submit still running past its time limit
  // may use it too: then it goes when the device closes.
  flush(device);
  if (device->submit_pending) {
    device->deferred_allocations.push_back(buffer->allocation);
  } else {
    destroy_allocation(device->device, &buffer->allocation);
  }
  delete buffer;
}

plaidml_plugin_status write(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                            uint64_t offset, const void* data, uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("write", buffer, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    if (!data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "write: data is NULL");
    std::lock_guard<std::mutex> lock(device->mutex);
    auto* host = static_cast<uint8_t*>(const_cast<void*>(data));  // only read: to_device
    return transfer(device, buffer, offset, host, bytes, /*to_device=*/true);
  });
}

plaidml_plugin_status read(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                           uint64_t offset, void* data, uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("read", buffer, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    if (!data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "read: data is NULL");
    std::lock_guard<std::mutex> lock(device->mutex);
    return transfer(device, buffer, offset, static_cast<uint8_t*>(data), bytes,
                    /*to_device=*/false);
  });
}

plaidml_plugin_status copy(plaidml_plugin_device device, plaidml_plugin_buffer src,
                           uint64_t src_offset, plaidml_plugin_buffer dst, uint64_t dst_offset,
                           uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("copy source", src, src_offset, bytes); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (auto s = check_range("copy destination", dst, dst_offset, bytes); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    bool overlap = src == dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes;
    if (overlap) {
      return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                  "copy within one buffer with overlapping ranges (" + std::to_string(bytes) +
                      " bytes from offset " + std::to_string(src_offset) + " to " +
                      std::to_string(dst_offset) + ")");
    }
    std::lock_guard<std::mutex> lock(device->mutex);
    if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
    // Recorded among the launches: ordered by the barriers, run at the next flush.
    if (auto s = begin_batch(device); s != PLAIDML_PLUGIN_OK) return s;
    record_copy(device, src->allocation.buffer, src_offset, dst->allocation.buffer, dst_offset,
                bytes);
    return PLAIDML_PLUGIN_OK;
  });
}

}  // namespace plaidml::devices::vulkan
