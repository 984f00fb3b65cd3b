// The memory-type choice (src/devices/vulkan/vk_memory_choice.h) on the memory layouts of real
// devices, so that a discrete GPU's choice is tested where there is none.
#include <doctest/doctest.h>

#include <vector>

#include "devices/vulkan/vk_memory_choice.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kVisible =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

struct Type {
  VkMemoryPropertyFlags flags;
  uint32_t heap;
};

VkPhysicalDeviceMemoryProperties layout(const std::vector<VkDeviceSize>& heaps,
                                        const std::vector<Type>& types) {
  VkPhysicalDeviceMemoryProperties m{};
  m.memoryHeapCount = static_cast<uint32_t>(heaps.size());
  for (size_t i = 0; i < heaps.size(); ++i) m.memoryHeaps[i].size = heaps[i];
  m.memoryTypeCount = static_cast<uint32_t>(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    m.memoryTypes[i].propertyFlags = types[i].flags;
    m.memoryTypes[i].heapIndex = types[i].heap;
  }
  return m;
}

constexpr VkDeviceSize kGiB = VkDeviceSize(1) << 30;

TEST_CASE("memory choice: a CPU device (lavapipe) maps its buffers for reads and writes") {
  auto m = layout({23 * kGiB}, {{kLocal | kVisible | kCached, 0}});
  MemoryChoice c;
  REQUIRE(choose_memory(m, 0x1, true, &c));
  CHECK(c.buffer_type == 0);
  CHECK(c.direct_writes);
  CHECK(c.direct_reads);
  // The option direct_host_access=0 turns both off.
  REQUIRE(choose_memory(m, 0x1, false, &c));
  CHECK_FALSE(c.direct_writes);
  CHECK_FALSE(c.direct_reads);
}

TEST_CASE("memory choice: a discrete GPU with a resizable BAR writes through it, reads by copy") {
  // NVIDIA H200 (driver 580): device-local heap; host heap with uncached and cached types; the
  // whole device-local heap also host-visible (uncached for the host's reads).
  auto m = layout({140 * kGiB, 2000 * kGiB},
                  {{kLocal, 0}, {kVisible, 1}, {kVisible | kCached, 1}, {kLocal | kVisible, 0}});
  MemoryChoice c;
  REQUIRE(choose_memory(m, 0xF, true, &c));
  CHECK(c.buffer_type == 3);
  CHECK(c.staging_type == 2);  // the host-cached one: staged reads are read from cache
  CHECK(c.direct_writes);
  CHECK_FALSE(c.direct_reads);
}

TEST_CASE("memory choice: a 256 MiB BAR window holds no buffers, a device with none fails") {
  auto m = layout({80 * kGiB, 64 * kGiB, 256 << 20},
                  {{kLocal, 0}, {kVisible | kCached, 1}, {kLocal | kVisible, 2}});
  MemoryChoice c;
  REQUIRE(choose_memory(m, 0x7, true, &c));
  CHECK(c.buffer_type == 0);
  CHECK_FALSE(c.direct_writes);
  CHECK_FALSE(c.direct_reads);
  auto none = layout({8 * kGiB}, {{kLocal, 0}});
  CHECK_FALSE(choose_memory(none, 0x1, true, &c));
}

}  // namespace
}  // namespace plaidml::devices::vulkan
