// The memory-type choice (src/devices/vulkan/vk_memory_choice.h) on the memory layouts of real
// devices, so that a discrete GPU's choice is tested where there is none.
#include <doctest/doctest.h>

#include <cstdint>
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

TEST_CASE("memory choice: buffer sizes round up to classes at most a quarter larger") {
  CHECK(allocation_class(0) == 256);
  CHECK(allocation_class(4) == 256);
  CHECK(allocation_class(256) == 256);
  CHECK(allocation_class(257) == 320);
  CHECK(allocation_class(1000) == 1024);
  CHECK(allocation_class(1025) == 1280);
  CHECK(allocation_class(4000) == 4096);
  CHECK(allocation_class(602112) == 655360);  // a 224 x 224 x 3 f32 image
  const uint64_t mib = uint64_t{1} << 20;
  CHECK(allocation_class(64 * mib) == 64 * mib);
  CHECK(allocation_class(64 * mib + 1) == 64 * mib + 65536);
  CHECK(allocation_class(25731072) == 28 * mib);  // GPT-2's logits at sequence 128
  for (uint64_t bytes : {uint64_t{300}, uint64_t{5000}, uint64_t{123457}, 9 * mib + 7}) {
    INFO(bytes);
    const uint64_t c = allocation_class(bytes);
    CHECK(c >= bytes);
    CHECK(c <= bytes + bytes / 4 + 64);
    CHECK(c % 64 == 0);
    CHECK(allocation_class(c) == c);  // a class is its own class: freed buffers stay findable
  }
  CHECK(allocation_class(UINT64_MAX) == UINT64_MAX);
}

}  // namespace
}  // namespace plaidml::devices::vulkan
