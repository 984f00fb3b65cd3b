// The memory-type choice (vk_memory_choice.h).
#include "devices/vulkan/vk_memory_choice.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr VkMemoryPropertyFlags kHostVisibleCoherent =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

// Whether `type` lives on the heap of `main_type` or one as large: a discrete GPU's small
// host-visible window (256 MiB BAR) is no place for every buffer.
bool on_main_heap(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type,
                  uint32_t main_type) {
  uint32_t heap = memory.memoryTypes[type].heapIndex;
  uint32_t main_heap = memory.memoryTypes[main_type].heapIndex;
  return memory.memoryHeaps[heap].size >= memory.memoryHeaps[main_heap].size;
}

}  // namespace

bool find_memory_type(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits,
                      VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                      uint32_t* out) {
  int fallback = -1;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) {
      *out = i;
      return true;
    }
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  if (fallback < 0) return false;
  *out = static_cast<uint32_t>(fallback);
  return true;
}

bool choose_memory(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits,
                   bool allow_direct, MemoryChoice* out) {
  MemoryChoice c;
  if (!find_memory_type(memory, type_bits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                        &c.buffer_type) ||
      !find_memory_type(memory, type_bits, kHostVisibleCoherent, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                        &c.staging_type)) {
    return false;
  }
  // Where device-local memory on the main heap is also host-visible and coherent (CPUs,
  // unified-memory GPUs, a discrete GPU with a resizable BAR), buffers live there and writes
  // map it; reads map it only where the host caches it too.
  uint32_t local_visible = 0;
  if (allow_direct &&
      find_memory_type(memory, type_bits,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | kHostVisibleCoherent,
                       VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &local_visible) &&
      on_main_heap(memory, local_visible, c.buffer_type)) {
    c.buffer_type = local_visible;
    c.direct_writes = true;
    c.direct_reads =
        memory.memoryTypes[local_visible].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  }
  *out = c;
  return true;
}

namespace {

constexpr uint64_t kMinClass = 256;
constexpr uint64_t kClassedUpTo = uint64_t{64} << 20;
constexpr uint64_t kLargeStep = 64 * 1024;

}  // namespace

uint64_t allocation_class(uint64_t bytes) {
  if (bytes <= kMinClass) return kMinClass;
  if (bytes > UINT64_MAX - kLargeStep) return bytes;  // no such buffer: creating it fails
  if (bytes > kClassedUpTo) return (bytes + kLargeStep - 1) / kLargeStep * kLargeStep;
  // The classes between 2^k and 2^(k+1): 2^k * (1, 1.25, 1.5, 1.75).
  uint64_t power = kMinClass;
  while (power * 2 < bytes) power *= 2;
  const uint64_t step = power / 4;
  return (bytes + step - 1) / step * step;
}

}  // namespace plaidml::devices::vulkan
