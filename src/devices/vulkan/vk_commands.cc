#include "devices/vulkan/vk_commands.h"

#include <algorithm>
#include <string>
#include <vector>

#include "devices/vulkan/vk_errors.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr uint32_t kSetsPerPool = 64;
constexpr uint32_t kDescriptorsPerPool = 1024;

constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kReadsAndWrites = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                          VK_ACCESS_TRANSFER_READ_BIT |
                                          VK_ACCESS_TRANSFER_WRITE_BIT;

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags dst_stages,
                    VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = kWrites;
  barrier.dstAccessMask = dst_access;
  vk().vkCmdPipelineBarrier(commands, kWorkStages, dst_stages, 0, 1, &barrier, 0, nullptr, 0,
                            nullptr);
}

plaidml_plugin_status add_descriptor_pool(VkDeviceState* device, uint32_t bindings) {
  DescriptorPool p;
  p.max_sets = kSetsPerPool;
  p.max_descriptors = std::max(kDescriptorsPerPool, bindings);
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p.max_descriptors};
  VkDescriptorPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.maxSets = p.max_sets;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkResult r = vk().vkCreateDescriptorPool(device->device, &info, nullptr, &p.pool);
  if (r != VK_SUCCESS) return fail_vk("vkCreateDescriptorPool", r);
  device->batch.descriptor_pools.push_back(p);
  return PLAIDML_PLUGIN_OK;
}

void clear_counts(CommandBatch* b) {
  b->recorded = 0;
  b->work = 0;
  b->kernels.clear();
}

// After the submit finished (or failed): everything recorded can go.
void reset_batch(VkDeviceState* device) {
  CommandBatch& b = device->batch;
  vk().vkResetCommandPool(device->device, b.pool, 0);
  for (DescriptorPool& p : b.descriptor_pools) {
    vk().vkResetDescriptorPool(device->device, p.pool, 0);
    p.sets_used = p.descriptors_used = 0;
  }
  b.recording = false;
  clear_counts(&b);
}

// " running kernel 'a'", " running kernels 'a', 'b', ..., 'z' (12 in all)", or "" for a submit
// of copies only: what a lost device or a late submit was doing, in the user's kernel names.
std::string running(const std::vector<const std::string*>& kernels) {
  if (kernels.empty()) return "";
  if (kernels.size() == 1) return " running kernel '" + *kernels[0] + "'";
  constexpr size_t kNamed = 3;
  std::string out = " running kernels";
  for (size_t i = 0; i < kernels.size() && i < kNamed; ++i) {
    out += (i ? ", '" : " '") + *kernels[i] + "'";
  }
  if (kernels.size() > kNamed + 1) out += ", ...";
  if (kernels.size() > kNamed) out += ", '" + *kernels.back() + "'";
  return out + " (" + std::to_string(kernels.size()) + " in all)";
}

// The wait for a submit: the device's base limit plus the submit's work at the slowest rate a
// working device runs our kernels at. A slow device (lavapipe under load) that progresses is
// never declared broken for a long submit; a hung one still ends in an error.
uint64_t wait_limit_ns(const VkDeviceState& device, double work) {
  constexpr double kSlowestNsPerOp = 20;  // 50 M scalar operations a second
  double extra = std::min(work * kSlowestNsPerOp, 1e18);
  return device.fence_timeout_ns + static_cast<uint64_t>(extra);
}

// Waits for the batch just submitted (its counts and kernels still recorded in device->batch).
plaidml_plugin_status wait_for_submit(VkDeviceState* device) {
  const CommandBatch& b = device->batch;
  const uint64_t limit = wait_limit_ns(*device, b.work);
  VkResult r = vk().vkWaitForFences(device->device, 1, &device->batch.fence, VK_TRUE, limit);
  if (r == VK_TIMEOUT) {
    device->submit_pending = true;
    device->broken = "a submit of " + std::to_string(b.recorded) + " commands" +
                     running(b.kernels) + " did not finish within " +
                     std::to_string(limit / 1000000) + " ms; the device is unusable";
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
  }
  if (r == VK_ERROR_DEVICE_LOST) {
    device->broken = "the Vulkan device was lost (VK_ERROR_DEVICE_LOST)" + running(b.kernels);
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
  }
  if (r != VK_SUCCESS) return fail_vk("vkWaitForFences", r, device->record->name);
  vk().vkResetFences(device->device, 1, &device->batch.fence);
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

plaidml_plugin_status create_batch(VkDeviceState* device) {
  CommandBatch& b = device->batch;
  VkCommandPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool.queueFamilyIndex = device->record->queue_family;
  VkResult r = vk().vkCreateCommandPool(device->device, &pool, nullptr, &b.pool);
  if (r != VK_SUCCESS) return fail_vk("vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = b.pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  r = vk().vkAllocateCommandBuffers(device->device, &alloc, &b.commands);
  if (r != VK_SUCCESS) return fail_vk("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fence{};
  fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  r = vk().vkCreateFence(device->device, &fence, nullptr, &b.fence);
  if (r != VK_SUCCESS) return fail_vk("vkCreateFence", r);
  return PLAIDML_PLUGIN_OK;
}

void destroy_batch(VkDeviceState* device) {
  CommandBatch& b = device->batch;
  for (DescriptorPool& p : b.descriptor_pools) {
    vk().vkDestroyDescriptorPool(device->device, p.pool, nullptr);
  }
  b.descriptor_pools.clear();
  if (b.fence) vk().vkDestroyFence(device->device, b.fence, nullptr);
  if (b.pool) vk().vkDestroyCommandPool(device->device, b.pool, nullptr);  // frees `commands`
  b = CommandBatch{};
}

plaidml_plugin_status check_usable(VkDeviceState* device) {
  if (device->broken.empty()) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
}

plaidml_plugin_status begin_batch(VkDeviceState* device) {
  CommandBatch& b = device->batch;
  if (b.recording) return PLAIDML_PLUGIN_OK;
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult r = vk().vkBeginCommandBuffer(b.commands, &begin);
  if (r != VK_SUCCESS) return fail_vk("vkBeginCommandBuffer", r, device->record->name);
  b.recording = true;
  return PLAIDML_PLUGIN_OK;
}

void record_barrier(VkDeviceState* device) {
  memory_barrier(device->batch.commands, kWorkStages, kReadsAndWrites);
  ++device->batch.recorded;
}

plaidml_plugin_status allocate_descriptor_set(VkDeviceState* device,
                                              VkDescriptorSetLayout layout, uint32_t bindings,
                                              VkDescriptorSet* out) {
  auto& pools = device->batch.descriptor_pools;
  auto fits = [&](const DescriptorPool& p) {
    return p.sets_used < p.max_sets && p.max_descriptors - p.descriptors_used >= bindings;
  };
  auto it = std::find_if(pools.begin(), pools.end(), fits);
  if (it == pools.end()) {
    if (auto s = add_descriptor_pool(device, bindings); s != PLAIDML_PLUGIN_OK) return s;
    it = pools.end() - 1;
  }
  VkDescriptorSetAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorPool = it->pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkResult r = vk().vkAllocateDescriptorSets(device->device, &info, out);
  if (r != VK_SUCCESS) return fail_vk("vkAllocateDescriptorSets", r);
  it->sets_used += 1;
  it->descriptors_used += bindings;
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status flush(VkDeviceState* device) {
  CommandBatch& b = device->batch;
  if (!b.recording) return PLAIDML_PLUGIN_OK;
  // Device writes become visible to the host (mapped buffers, staging) once the fence signals.
  memory_barrier(b.commands, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  VkResult r = vk().vkEndCommandBuffer(b.commands);
  if (r != VK_SUCCESS) {
    reset_batch(device);
    return fail_vk("vkEndCommandBuffer", r, device->record->name);
  }
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &b.commands;
  r = vk().vkQueueSubmit(device->queue, 1, &submit, b.fence);
  if (r == VK_ERROR_DEVICE_LOST) device->broken = "the Vulkan device was lost (at submit)";
  if (r != VK_SUCCESS) {
    reset_batch(device);
    return fail_vk("vkQueueSubmit", r, device->record->name);
  }
  plaidml_plugin_status s = wait_for_submit(device);
  if (!device->submit_pending) {
    reset_batch(device);
    return s;
  }
  // A submit that may still run keeps its command buffer and descriptor sets. The buffer is
  // pending, no longer recording: the flushes of unload, free_buffer and close that follow
  // must not end and submit it again (the validation layer reports that as a command buffer
  // and a fence still in use; a driver may crash on it).
  b.recording = false;
  clear_counts(&b);
  return s;
}

bool settle_for_close(VkDeviceState* device) {
  if (device->submit_pending) {
    VkResult r = vk().vkWaitForFences(device->device, 1, &device->batch.fence, VK_TRUE,
                                      kCloseGraceMs * 1000 * 1000);
    if (r == VK_TIMEOUT) return false;
    device->submit_pending = false;
  }
  // A lost device runs nothing: its objects may be destroyed (the wait reports the loss).
  vk().vkDeviceWaitIdle(device->device);
  return true;
}

}  // namespace plaidml::devices::vulkan
