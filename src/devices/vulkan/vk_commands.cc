#include "devices/vulkan/vk_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "devices/vulkan/vk_errors.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr uint32_t kSetsPerPool = 64;
constexpr uint32_t kDescriptorsPerPool = 1024;

// Early submits: the first batch of a run goes to the device after this many commands, so the
// device starts while the host records the rest; each next one may hold twice as many, up to
// kMaxBatchCommands, so a long program costs few submits.
constexpr size_t kFirstBatchCommands = 8;
constexpr size_t kMaxBatchCommands = 1024;
// A batch also goes once its launches' estimated work passes this many scalar operations (about
// a second on a slow CPU device, a millisecond on a large GPU), so no submit is unbounded.
constexpr double kBatchWork = 1e10;

constexpr uint64_t kDefaultGpuSpinNs = 2000ull * 1000;

constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kReadsAndWrites = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                          VK_ACCESS_TRANSFER_READ_BIT |
                                          VK_ACCESS_TRANSFER_WRITE_BIT;

CommandBatch& recording(VkDeviceState* device) {
  return device->ring.batches[device->ring.current];
}

// The batch submitted longest ago that nobody has waited for (ring.submitted > 0).
CommandBatch& oldest_in_flight(VkDeviceState* device) {
  const CommandRing& ring = device->ring;
  return device->ring
      .batches[(ring.current + kBatchesInFlight - ring.submitted) % kBatchesInFlight];
}

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags dst_stages,
                    VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = kWrites;
  barrier.dstAccessMask = dst_access;
  vk().vkCmdPipelineBarrier(commands, kWorkStages, dst_stages, 0, 1, &barrier, 0, nullptr, 0,
                            nullptr);
}

plaidml_plugin_status add_descriptor_pool(VkDeviceState* device, CommandBatch* batch,
                                          uint32_t bindings) {
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
  batch->descriptor_pools.push_back(p);
  return PLAIDML_PLUGIN_OK;
}

// After the batch's submit finished (or failed, or never happened): everything recorded goes.
void reset_batch(VkDeviceState* device, CommandBatch* b) {
  vk().vkResetCommandPool(device->device, b->pool, 0);
  for (DescriptorPool& p : b->descriptor_pools) {
    vk().vkResetDescriptorPool(device->device, p.pool, 0);
    p.sets_used = p.descriptors_used = 0;
  }
  b->state = CommandBatch::State::kIdle;
  b->recorded = 0;
  b->work = 0;
  b->kernels.clear();
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

// The wait for a batch: the device's base limit plus the batch's work at the slowest rate a
// working device runs our kernels at. A slow device (lavapipe under load) that progresses is
// never declared broken for a long submit; a hung one still ends in an error.
uint64_t wait_limit_ns(const VkDeviceState& device, double work) {
  constexpr double kSlowestNsPerOp = 20;  // 50 M scalar operations a second
  double extra = std::min(work * kSlowestNsPerOp, 1e18);
  return device.fence_timeout_ns + static_cast<uint64_t>(extra);
}

// vkWaitForFences after polling the fence for up to device.fence_spin_ns (vk_commands.h).
VkResult wait_fence(const VkDeviceState& device, VkFence fence, uint64_t limit_ns) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  uint64_t spun = 0;
  while (spun < device.fence_spin_ns && spun < limit_ns) {
    VkResult r = vk().vkGetFenceStatus(device.device, fence);
    if (r != VK_NOT_READY) return r;
    std::this_thread::yield();
    spun = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  }
  return vk().vkWaitForFences(device.device, 1, &fence, VK_TRUE,
                              limit_ns - std::min(spun, limit_ns));
}

// The device was lost: nothing in flight will finish, and nothing recorded will run.
void drop_all_batches(VkDeviceState* device) {
  for (CommandBatch& b : device->ring.batches) {
    if (b.state != CommandBatch::State::kIdle) reset_batch(device, &b);
  }
  device->ring.submitted = 0;
}

// Waits for the oldest batch in flight and makes it reusable. A late batch leaves the device
// broken with every batch still in flight (settle_for_close waits for them).
plaidml_plugin_status wait_oldest(VkDeviceState* device) {
  CommandBatch& b = oldest_in_flight(device);
  const uint64_t limit = wait_limit_ns(*device, b.work);
  VkResult r = wait_fence(*device, b.fence, limit);
  if (r == VK_TIMEOUT) {
    device->submit_pending = true;
    device->broken = "a submit of " + std::to_string(b.recorded) + " commands" +
                     running(b.kernels) + " did not finish within " +
                     std::to_string(limit / 1000000) + " ms; the device is unusable";
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
  }
  if (r != VK_SUCCESS) {
    device->broken = r == VK_ERROR_DEVICE_LOST
                         ? "the Vulkan device was lost (VK_ERROR_DEVICE_LOST)" + running(b.kernels)
                         : "waiting for a submit failed (" + vk_result_name(r) + ")";
    drop_all_batches(device);
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
  }
  vk().vkResetFences(device->device, 1, &b.fence);
  reset_batch(device, &b);
  --device->ring.submitted;
  return PLAIDML_PLUGIN_OK;
}

// Ends the recording batch and hands it to the queue; the next batch becomes the recording one.
plaidml_plugin_status submit(VkDeviceState* device) {
  CommandBatch& b = recording(device);
  VkResult r = vk().vkEndCommandBuffer(b.commands);
  if (r != VK_SUCCESS) {
    reset_batch(device, &b);
    return fail_vk("vkEndCommandBuffer", r, device->record->name);
  }
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &b.commands;
  r = vk().vkQueueSubmit(device->queue, 1, &info, b.fence);
  if (r != VK_SUCCESS) {
    reset_batch(device, &b);
    if (r == VK_ERROR_DEVICE_LOST) {
      device->broken = "the Vulkan device was lost (at submit)";
      drop_all_batches(device);
    }
    return fail_vk("vkQueueSubmit", r, device->record->name);
  }
  b.state = CommandBatch::State::kSubmitted;
  CommandRing& ring = device->ring;
  ring.current = (ring.current + 1) % kBatchesInFlight;
  ++ring.submitted;
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status parse_spin_us(const char* value, uint64_t* out_ns) {
  char* end = nullptr;
  unsigned long long us = std::strtoull(value, &end, 10);
  if (!*value || *end || us > 10ull * 1000 * 1000) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                std::string("PLAIDML_VULKAN_FENCE_SPIN_US must be a number of microseconds up "
                            "to 10000000, got '") +
                    value + "'");
  }
  *out_ns = us * 1000;
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

plaidml_plugin_status create_batches(VkDeviceState* device) {
  device->ring.submit_at = kFirstBatchCommands;
  for (CommandBatch& b : device->ring.batches) {
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
  }
  return PLAIDML_PLUGIN_OK;
}

void destroy_batches(VkDeviceState* device) {
  for (CommandBatch& b : device->ring.batches) {
    for (DescriptorPool& p : b.descriptor_pools) {
      vk().vkDestroyDescriptorPool(device->device, p.pool, nullptr);
    }
    if (b.fence) vk().vkDestroyFence(device->device, b.fence, nullptr);
    if (b.pool) vk().vkDestroyCommandPool(device->device, b.pool, nullptr);  // frees `commands`
    b = CommandBatch{};
  }
  device->ring = CommandRing{};
}

plaidml_plugin_status fence_spin_ns(const VkDeviceRecord& record, uint64_t* out) {
  const char* value = std::getenv("PLAIDML_VULKAN_FENCE_SPIN_US");
  if (value) return parse_spin_us(value, out);
  *out = record.kind == "cpu" ? 0 : kDefaultGpuSpinNs;
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status check_usable(VkDeviceState* device) {
  if (device->broken.empty()) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_DEVICE_ERROR, device->record->name + ": " + device->broken);
}

plaidml_plugin_status begin_batch(VkDeviceState* device, VkCommandBuffer* out) {
  CommandBatch& b = recording(device);
  if (b.state == CommandBatch::State::kSubmitted) {  // every batch is in flight: this the oldest
    if (auto s = wait_oldest(device); s != PLAIDML_PLUGIN_OK) return s;
  }
  if (b.state == CommandBatch::State::kIdle) {
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult r = vk().vkBeginCommandBuffer(b.commands, &begin);
    if (r != VK_SUCCESS) return fail_vk("vkBeginCommandBuffer", r, device->record->name);
    b.state = CommandBatch::State::kRecording;
  }
  *out = b.commands;
  return PLAIDML_PLUGIN_OK;
}

void record_barrier(VkDeviceState* device) {
  CommandBatch& b = recording(device);
  memory_barrier(b.commands, kWorkStages, kReadsAndWrites);
  ++b.recorded;
}

plaidml_plugin_status allocate_descriptor_set(VkDeviceState* device,
                                              VkDescriptorSetLayout layout, uint32_t bindings,
                                              VkDescriptorSet* out) {
  CommandBatch& batch = recording(device);
  auto& pools = batch.descriptor_pools;
  auto fits = [&](const DescriptorPool& p) {
    return p.sets_used < p.max_sets && p.max_descriptors - p.descriptors_used >= bindings;
  };
  auto it = std::find_if(pools.begin(), pools.end(), fits);
  if (it == pools.end()) {
    if (auto s = add_descriptor_pool(device, &batch, bindings); s != PLAIDML_PLUGIN_OK) return s;
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

plaidml_plugin_status note_launch(VkDeviceState* device, const std::string* kernel, double work) {
  CommandBatch& b = recording(device);
  b.work += std::max(0.0, work);
  b.kernels.push_back(kernel);
  CommandRing& ring = device->ring;
  if (b.work < kBatchWork && b.recorded < ring.submit_at) return PLAIDML_PLUGIN_OK;
  ring.submit_at = std::min(ring.submit_at * 2, kMaxBatchCommands);
  return submit(device);
}

plaidml_plugin_status flush(VkDeviceState* device) {
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  CommandBatch& b = recording(device);
  if (b.state == CommandBatch::State::kRecording) {
    // Device writes become visible to the host (mapped buffers, staging) once the fence signals;
    // the barrier's first scope holds the batches submitted before this one too.
    memory_barrier(b.commands, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if (auto s = submit(device); s != PLAIDML_PLUGIN_OK) return s;
  }
  while (device->ring.submitted > 0) {
    if (auto s = wait_oldest(device); s != PLAIDML_PLUGIN_OK) return s;
  }
  device->ring.submit_at = kFirstBatchCommands;
  return PLAIDML_PLUGIN_OK;
}

bool settle_for_close(VkDeviceState* device) {
  if (device->submit_pending) {
    std::vector<VkFence> fences;
    for (const CommandBatch& b : device->ring.batches) {
      if (b.state == CommandBatch::State::kSubmitted) fences.push_back(b.fence);
    }
    if (!fences.empty()) {
      VkResult r = vk().vkWaitForFences(device->device, static_cast<uint32_t>(fences.size()),
                                        fences.data(), VK_TRUE, kCloseGraceMs * 1000 * 1000);
      if (r == VK_TIMEOUT) return false;
    }
    device->submit_pending = false;
  }
  // A lost device runs nothing: its objects may be destroyed (the wait reports the loss).
  vk().vkDeviceWaitIdle(device->device);
  return true;
}

}  // namespace plaidml::devices::vulkan
