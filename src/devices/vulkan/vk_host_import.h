// Reads of device buffers straight into the caller's memory (VK_EXT_external_memory_host): the
// host pages that hold the destination are imported as device-visible memory for one copy, so
// a large output (GPT-2's 25.7 MB of logits) moves by one DMA instead of through the staging
// buffer, 16 MiB at a time, each step a copy on the device, a wait and a memcpy on the host.
// Where the device lacks the extension, the read is small, the device option "host_import" is
// "0", or the driver will not import those pages (a mapping it cannot pin), reads stage as
// before (vk_buffer.cc). Every function here needs device->mutex held.
#pragma once

#include <cstdint>

#include "devices/vulkan/vk_handles.h"

namespace plaidml::devices::vulkan {

// Below this, staging costs less than importing (pinning pages, a buffer and its memory).
inline constexpr uint64_t kHostImportMinBytes = uint64_t{1} << 20;

// At describe time: where the device lists the extension (`listed`), records its minimum
// host-pointer alignment (VkDeviceRecord::host_import_alignment) and enables the extension.
void read_host_import(VkDeviceRecord* r, bool listed);

// At open: whether reads may import (the record and the option), and the driver's entry point.
void enable_host_import(VkDeviceState* device, bool allowed);

// The pages of one read, imported: `buffer` covers them, the destination starts `offset` bytes
// into it.
struct HostImport {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t offset = 0;
};

// Imports the pages holding [host, host + bytes), rounded out to the device's alignment; false,
// with nothing left behind, where the device cannot (the caller stages instead).
bool import_host_range(VkDeviceState* device, void* host, uint64_t bytes, HostImport* out);
void release_host_import(VkDevice device, HostImport* import);

}  // namespace plaidml::devices::vulkan
