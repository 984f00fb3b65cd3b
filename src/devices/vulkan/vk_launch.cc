#include "devices/vulkan/vk_launch.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_errors.h"

namespace plaidml::devices::vulkan {
namespace {

std::string dims(const uint32_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

plaidml_plugin_status check_launch(plaidml_plugin_device device,
                                   plaidml_plugin_executable executable,
                                   const plaidml_plugin_launch_info* info,
                                   const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  if (!executable || !info || (!buffers && num_buffers)) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch: NULL argument");
  }
  if (info->struct_size < offsetof(plaidml_plugin_launch_info, grid) + sizeof(info->grid)) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch info too small for the grid");
  }
  if (info->kernel >= executable->pipelines.size()) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "kernel index " + std::to_string(info->kernel) + " out of range (" +
                    std::to_string(executable->pipelines.size()) + " kernels)");
  }
  // Every binding the kernel uses needs a buffer; extra buffers are accepted and not bound.
  const uint32_t bindings = executable->bindings[info->kernel];
  if (num_buffers < bindings) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "kernel '" + executable->symbols[info->kernel] + "' uses " +
                    std::to_string(bindings) + " buffer slots, got " +
                    std::to_string(num_buffers) + " buffers");
  }
  for (size_t i = 0; i < num_buffers; ++i) {
    if (!buffers[i]) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch: buffer is NULL");
  }
  const uint32_t* max = device->record->max_group_count;
  if (info->grid[0] > max[0] || info->grid[1] > max[1] || info->grid[2] > max[2]) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "grid " + dims(info->grid) + " exceeds " +
                                                     device->record->name + "'s group count " +
                                                     dims(max));
  }
  return PLAIDML_PLUGIN_OK;
}

void write_descriptors(plaidml_plugin_device device, VkDescriptorSet set, uint32_t bindings,
                       const plaidml_plugin_buffer* buffers) {
  std::vector<VkDescriptorBufferInfo> infos(bindings);
  std::vector<VkWriteDescriptorSet> writes(bindings);
  for (uint32_t k = 0; k < bindings; ++k) {
    const VkAllocation& a = buffers[k]->allocation;
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

plaidml_plugin_status record_dispatch(plaidml_plugin_device device,
                                      plaidml_plugin_executable executable,
                                      const plaidml_plugin_launch_info& info,
                                      const plaidml_plugin_buffer* buffers) {
  if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  if (auto s = begin_batch(device); s != PLAIDML_PLUGIN_OK) return s;
  VkCommandBuffer commands = device->batch.commands;
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
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable executable,
                             const plaidml_plugin_launch_info* info,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_launch(device, executable, info, buffers, num_buffers);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (info->grid[0] == 0 || info->grid[1] == 0 || info->grid[2] == 0) return PLAIDML_PLUGIN_OK;
    std::lock_guard<std::mutex> lock(device->mutex);
    return record_dispatch(device, executable, *info, buffers);
  });
}

plaidml_plugin_status synchronize(plaidml_plugin_device device) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    std::lock_guard<std::mutex> lock(device->mutex);
    if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
    return flush(device);
  });
}

}  // namespace plaidml::devices::vulkan
