// Freed buffers kept for reuse. vkAllocateMemory and vkFreeMemory are calls into the kernel
// driver that cost tens of microseconds or more each on a discrete GPU, and a run from Python
// allocates its inputs and outputs every time: with this cache a run of the same shapes finds
// the buffers its last run freed. Sizes are rounded up to classes (allocation_class,
// vk_memory_choice.h), so a buffer of a nearby size fits too. The cache holds at most 256 MiB
// or an eighth of the device's memory, whichever is less; a buffer that does not fit is
// destroyed. Allocation that runs out of memory empties the cache and tries once more.
// Every function needs device->mutex held.
#pragma once

#include <cstdint>

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// A buffer of `bytes` in the device's buffer memory: a cached one of its class, else new.
plaidml_plugin_status allocate_buffer_memory(VkDeviceState* device, uint64_t bytes,
                                             VkAllocation* out);

// Keeps the allocation for reuse when it fits the cache, else destroys it.
void release_buffer_memory(VkDeviceState* device, VkAllocation* allocation);

// Destroys every cached allocation (the device closes, or memory ran out).
void clear_allocation_cache(VkDeviceState* device);

}  // namespace plaidml::devices::vulkan
