// The device's command batch: launches and copies are recorded into one command buffer, with a
// barrier after each, and go to the queue in one submit when something must wait for them
// (synchronize, read, write, freeing what they use) or when the batch holds enough work
// (vk_launch.cc). The fence wait has a time limit that grows with the submit's work, so a hung
// device gives an error instead of a hang and a slow one is not taken for hung. Every function
// here needs device->mutex held.
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// Command pool, command buffer and fence of a newly opened device.
plaidml_plugin_status create_batch(VkDeviceState* device);
void destroy_batch(VkDeviceState* device);

// DEVICE_ERROR with the reason once the device was lost or timed out.
plaidml_plugin_status check_usable(VkDeviceState* device);

// Begins the command buffer unless it is already recording.
plaidml_plugin_status begin_batch(VkDeviceState* device);

// Orders every compute or transfer command recorded before it before every one after it.
void record_barrier(VkDeviceState* device);

// A descriptor set of `layout` (with `bindings` storage buffers) valid until the next flush.
plaidml_plugin_status allocate_descriptor_set(VkDeviceState* device,
                                              VkDescriptorSetLayout layout, uint32_t bindings,
                                              VkDescriptorSet* out);

// Submits what was recorded, waits for it (time-limited: the device's limit plus the work at
// 50 M operations a second) and resets the batch. No-op when nothing was recorded. A lost
// device or a late submit names the kernels it was running.
plaidml_plugin_status flush(VkDeviceState* device);

// Whether the device runs nothing any more, so that its objects may be destroyed: after a timed
// out submit, waits once more, up to kCloseGraceMs. False: leave everything alive (leaked).
inline constexpr uint64_t kCloseGraceMs = 10000;
bool settle_for_close(VkDeviceState* device);

}  // namespace plaidml::devices::vulkan
