// The device's command batches: launches and copies are recorded into a command buffer, with a
// barrier after each. The recording batch goes to the queue without waiting once it holds
// enough commands (8, then twice as many each time, up to 1024) or enough work (1e10
// estimated operations), and the host records the next batch while the device runs it; a
// flush (synchronize, read, write, freeing what the launches use) submits what is recorded and
// waits for every batch in flight. Barriers order commands across submits on the one queue, so
// a program runs as if in one batch.
//
// Each wait has a time limit that grows with its batch's work, so a hung device gives an error
// instead of a hang and a slow one is not taken for hung. On a GPU a wait first polls the fence
// for a short while (PLAIDML_VULKAN_FENCE_SPIN_US, default 2000 us; 0 on a CPU device, where
// polling would take a core from the device itself): a sleeping waiter wakes well after the
// fence signals, which a short run pays on every execute.
//
// Every function here needs device->mutex held.
#pragma once

#include <string>

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// Command pools, command buffers and fences of a newly opened device.
plaidml_plugin_status create_batches(VkDeviceState* device);
void destroy_batches(VkDeviceState* device);

// How long waits poll before they sleep: the environment's PLAIDML_VULKAN_FENCE_SPIN_US, else
// the default for the device's kind. INVALID_ARGUMENT names a value that is not a number.
plaidml_plugin_status fence_spin_ns(const VkDeviceRecord& record, uint64_t* out);

// DEVICE_ERROR with the reason once the device was lost or timed out.
plaidml_plugin_status check_usable(VkDeviceState* device);

// The command buffer of the recording batch, begun if it was not (when that batch is still in
// flight from its last use, after waiting for it).
plaidml_plugin_status begin_batch(VkDeviceState* device, VkCommandBuffer* out);

// Orders every compute or transfer command recorded before it before every one after it.
void record_barrier(VkDeviceState* device);

// A descriptor set of `layout` (with `bindings` storage buffers) valid until the recording
// batch has run.
plaidml_plugin_status allocate_descriptor_set(VkDeviceState* device,
                                              VkDescriptorSetLayout layout, uint32_t bindings,
                                              VkDescriptorSet* out);

// Counts a launch just recorded (after its barrier): `kernel` names it in errors, `work` is its
// estimated scalar operations. Submits the batch, without waiting, once it holds enough.
plaidml_plugin_status note_launch(VkDeviceState* device, const std::string* kernel, double work);

// Submits what was recorded and waits for every batch in flight, oldest first (each wait
// time-limited: the device's limit plus the batch's work at 50 M operations a second). No-op when
// nothing was recorded. A lost device or a late submit names the kernels it was running.
plaidml_plugin_status flush(VkDeviceState* device);

// Whether the device runs nothing any more, so that its objects may be destroyed: after a timed
// out submit, waits once more, up to kCloseGraceMs. False: leave everything alive (leaked).
inline constexpr uint64_t kCloseGraceMs = 10000;
bool settle_for_close(VkDeviceState* device);

}  // namespace plaidml::devices::vulkan
