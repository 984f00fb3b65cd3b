#include "devices/vulkan/vk_memory.h"

#include <algorithm>

#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_memory_choice.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT;

constexpr VkMemoryPropertyFlags kHostCoherent =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

std::string bytes_on(uint64_t bytes, VkDeviceState* device) {
  return std::to_string(bytes) + " bytes on " + device->record->name;
}

plaidml_plugin_status allocation_failed(const char* function, VkResult r, uint64_t bytes,
                                        VkDeviceState* device) {
  if (status_of(r) == PLAIDML_PLUGIN_OUT_OF_MEMORY) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of device memory: cannot allocate " +
                                                  bytes_on(bytes, device) + " (" + function +
                                                  ": " + vk_result_name(r) + ")");
  }
  return fail_vk(function, r, bytes_on(bytes, device));
}

// Creates the VkBuffer only, to learn which memory types may back it.
VkResult create_vk_buffer(VkDevice device, uint64_t size, VkBuffer* out) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  return vk().vkCreateBuffer(device, &info, nullptr, out);
}

}  // namespace

plaidml_plugin_status create_allocation(VkDeviceState* device, uint64_t bytes,
                                        uint32_t memory_type, VkAllocation* out) {
  // Vulkan has no empty buffers and copies want 4-byte multiples.
  const uint64_t size = std::max<uint64_t>(4, (bytes + 3) & ~uint64_t(3));
  VkAllocation a;
  a.size = size;
  VkResult r = create_vk_buffer(device->device, size, &a.buffer);
  if (r != VK_SUCCESS) return allocation_failed("vkCreateBuffer", r, bytes, device);
  VkMemoryRequirements needs{};
  vk().vkGetBufferMemoryRequirements(device->device, a.buffer, &needs);
  if (!(needs.memoryTypeBits & (1u << memory_type))) {
    destroy_allocation(device->device, &a);
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, "the buffer memory type " +
                                                 std::to_string(memory_type) +
                                                 " cannot back a buffer of " +
                                                 bytes_on(bytes, device));
  }
  VkMemoryAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  info.allocationSize = needs.size;
  info.memoryTypeIndex = memory_type;
  // Each buffer has its memory to itself, so the driver may place it as a dedicated
  // allocation (core in Vulkan 1.1), as NVIDIA advises for large buffers. On the H200 f16
  // matmul 8192 through workgroup-scope matrices ran 3x slower in 2 of 6 processes without it
  // and in none of 6 with it (a small sample; bench/RESULTS.md).
  VkMemoryDedicatedAllocateInfo dedicated{};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated.buffer = a.buffer;
  info.pNext = &dedicated;
  r = vk().vkAllocateMemory(device->device, &info, nullptr, &a.memory);
  if (r == VK_SUCCESS) r = vk().vkBindBufferMemory(device->device, a.buffer, a.memory, 0);
  const auto flags = device->record->memory.memoryTypes[memory_type].propertyFlags;
  if (r == VK_SUCCESS && (flags & kHostCoherent) == kHostCoherent) {
    r = vk().vkMapMemory(device->device, a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped);
  }
  if (r != VK_SUCCESS) {
    destroy_allocation(device->device, &a);
    return allocation_failed("vkAllocateMemory", r, bytes, device);
  }
  *out = a;
  return PLAIDML_PLUGIN_OK;
}

void destroy_allocation(VkDevice device, VkAllocation* a) {
  // Freeing memory unmaps it.
  if (a->buffer) vk().vkDestroyBuffer(device, a->buffer, nullptr);
  if (a->memory) vk().vkFreeMemory(device, a->memory, nullptr);
  *a = VkAllocation{};
}

plaidml_plugin_status choose_memory_types(VkDeviceState* device, bool allow_direct) {
  VkBuffer probe = VK_NULL_HANDLE;
  VkResult r = create_vk_buffer(device->device, 4, &probe);
  if (r != VK_SUCCESS) return fail_vk("vkCreateBuffer", r, "probing buffer memory types");
  VkMemoryRequirements needs{};
  vk().vkGetBufferMemoryRequirements(device->device, probe, &needs);
  vk().vkDestroyBuffer(device->device, probe, nullptr);
  MemoryChoice c;
  if (!choose_memory(device->record->memory, needs.memoryTypeBits, allow_direct, &c)) {
    return fail(PLAIDML_PLUGIN_UNSUPPORTED,
                device->record->name + " has no host-visible memory for buffers");
  }
  device->buffer_memory_type = c.buffer_type;
  device->staging_memory_type = c.staging_type;
  device->direct_host_writes = c.direct_writes;
  device->direct_host_reads = c.direct_reads;
  return PLAIDML_PLUGIN_OK;
}

}  // namespace plaidml::devices::vulkan
