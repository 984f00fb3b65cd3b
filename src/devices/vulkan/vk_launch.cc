// Kernel launches and synchronisation. A launch is recorded into the device's recording batch
// (bind pipeline, descriptor set of the buffers, dispatch, barrier), which goes to the device
// once it holds enough (vk_commands.h); synchronize submits the rest and waits for it all.

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_handles.h"

namespace plaidml::devices::vulkan {
namespace {

std::string dims(const uint32_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

// Every binding the kernel uses needs a buffer (extra buffers are accepted and not bound), and
// the grid fits the device.
plaidml_plugin_status check_launch(const VkDeviceRecord& r, const VulkanExecutable& exe,
                                   const plaidml_plugin_launch_info& info, size_t num_buffers) {
  const uint32_t bindings = exe.bindings[info.kernel];
  if (num_buffers < bindings) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "kernel '" + exe.symbols()[info.kernel] + "' uses " + std::to_string(bindings) +
                    " buffer slots, got " + std::to_string(num_buffers) + " buffers");
  }
  const uint32_t* max = r.max_group_count;
  if (info.grid[0] > max[0] || info.grid[1] > max[1] || info.grid[2] > max[2]) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "grid " + dims(info.grid) + " exceeds " + r.name + "'s group count " + dims(max));
  }
  return PLAIDML_PLUGIN_OK;
}

void write_descriptors(VkDeviceState* device, VkDescriptorSet set, uint32_t bindings,
                       const std::vector<plugin_support::Buffer*>& buffers) {
  std::vector<VkDescriptorBufferInfo> infos(bindings);
  std::vector<VkWriteDescriptorSet> writes(bindings);
  for (uint32_t k = 0; k < bindings; ++k) {
    const VkAllocation& a = static_cast<VulkanBuffer*>(buffers[k])->allocation;
    // A buffer larger than the device's storage-buffer range is seen up to that range.
    infos[k] = {a.buffer, 0, std::min(a.size, device->record->max_storage_buffer_range)};
    writes[k].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[k].dstSet = set;
    writes[k].dstBinding = k;
    writes[k].descriptorCount = 1;
    writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[k].pBufferInfo = &infos[k];
  }
  vk().vkUpdateDescriptorSets(device->device, bindings, writes.data(), 0, nullptr);
}

plaidml_plugin_status record_dispatch(VkDeviceState* device, VulkanExecutable* executable,
                                      const plaidml_plugin_launch_info& info,
                                      const std::vector<plugin_support::Buffer*>& buffers) {
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  if (auto s = begin_batch(device, &commands); s != PLAIDML_PLUGIN_OK) return s;
  const uint32_t bindings = executable->bindings[info.kernel];
  if (bindings > 0) {
    const auto& layout = executable->layouts.at(bindings);
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (auto s = allocate_descriptor_set(device, layout.set_layout, bindings, &set);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    write_descriptors(device, set, bindings, buffers);
    vk().vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, layout.layout, 0, 1,
                                 &set, 0, nullptr);
  }
  vk().vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                         executable->pipelines[info.kernel]);
  vk().vkCmdDispatch(commands, info.grid[0], info.grid[1], info.grid[2]);
  record_barrier(device);
  return note_launch(device, &executable->symbols()[info.kernel], info.work);
}

}  // namespace

plaidml_plugin_status VulkanDevice::launch(plugin_support::Executable& executable,
                                           const plaidml_plugin_launch_info& info,
                                           const std::vector<plugin_support::Buffer*>& buffers) {
  auto& exe = static_cast<VulkanExecutable&>(executable);
  if (auto s = check_launch(*state_->record, exe, info, buffers.size()); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  if (info.grid[0] == 0 || info.grid[1] == 0 || info.grid[2] == 0) return PLAIDML_PLUGIN_OK;
  std::lock_guard<std::mutex> lock(state_->mutex);
  return record_dispatch(state_.get(), &exe, info, buffers);
}

plaidml_plugin_status VulkanDevice::synchronize() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (auto s = check_usable(state_.get()); s != PLAIDML_PLUGIN_OK) return s;
  return flush(state_.get());
}

}  // namespace plaidml::devices::vulkan
