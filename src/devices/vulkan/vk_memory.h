// Buffers with their own device memory: memory-type choice, creation with the out-of-memory
// cases reported as such, and destruction.
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// A storage + transfer buffer of `bytes` (0 gets a small one) in memory type `memory_type`,
// mapped when that type is host-visible. Failures are recorded (OUT_OF_MEMORY names the size).
plaidml_plugin_status create_allocation(VkDeviceState* device, uint64_t bytes,
                                        uint32_t memory_type, VkAllocation* out);

void destroy_allocation(VkDevice device, VkAllocation* allocation);

// Chooses the device's buffer and staging memory types and its direct host transfers, at open
// (vk_memory_choice.h).
plaidml_plugin_status choose_memory_types(VkDeviceState* device, bool allow_direct);

}  // namespace plaidml::devices::vulkan
