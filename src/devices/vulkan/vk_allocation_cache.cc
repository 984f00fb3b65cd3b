#include "devices/vulkan/vk_allocation_cache.h"

#include <algorithm>

#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_memory_choice.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr uint64_t kCacheBytes = uint64_t{256} << 20;

uint64_t cache_limit(const VkDeviceState& device) {
  const uint64_t memory = device.record->memory_bytes;
  return memory ? std::min(kCacheBytes, memory / 8) : kCacheBytes;
}

}  // namespace

plaidml_plugin_status allocate_buffer_memory(VkDeviceState* device, uint64_t bytes,
                                             VkAllocation* out) {
  const uint64_t size = allocation_class(bytes);
  AllocationCache& cache = device->allocation_cache;
  if (auto it = cache.by_size.find(size); it != cache.by_size.end()) {
    *out = it->second;
    cache.bytes -= size;
    cache.by_size.erase(it);
    return PLAIDML_PLUGIN_OK;
  }
  plaidml_plugin_status s = create_allocation(device, size, device->buffer_memory_type, out);
  if (s == PLAIDML_PLUGIN_OUT_OF_MEMORY && !cache.by_size.empty()) {
    clear_allocation_cache(device);
    s = create_allocation(device, size, device->buffer_memory_type, out);
  }
  return s;
}

void release_buffer_memory(VkDeviceState* device, VkAllocation* allocation) {
  AllocationCache& cache = device->allocation_cache;
  const uint64_t size = allocation->size;
  if (size == allocation_class(size) && cache.bytes + size <= cache_limit(*device)) {
    cache.by_size.emplace(size, *allocation);
    cache.bytes += size;
    *allocation = VkAllocation{};
    return;
  }
  destroy_allocation(device->device, allocation);
}

void clear_allocation_cache(VkDeviceState* device) {
  AllocationCache& cache = device->allocation_cache;
  for (auto& [size, allocation] : cache.by_size) destroy_allocation(device->device, &allocation);
  cache.by_size.clear();
  cache.bytes = 0;
}

}  // namespace plaidml::devices::vulkan
