// Which memory types a device's buffers and staging copies use, which host transfers may go
// through a mapping instead of a copy, and the size classes of buffers: pure functions, so
// that the choice for a discrete GPU is tested on a machine without one.
#pragma once

#include <cstdint>

#include "devices/vulkan/vk_api.h"

namespace plaidml::devices::vulkan {

struct MemoryChoice {
  uint32_t buffer_type = 0;   // device-local where there is one
  uint32_t staging_type = 0;  // host-visible and coherent, host-cached where there is one
  // write() may copy into a mapping of the buffer itself (device-local memory the host sees).
  bool direct_writes = false;
  // read() may copy out of that mapping: only where the host caches it (CPUs, unified memory).
  // A discrete GPU's BAR mapping is uncached for the host's reads: GPT-2 through Vulkan on an
  // H200 took 689 ms a run reading its 25.7 MB of logits from it, 34 ms through staging.
  bool direct_reads = false;
};

// The first memory type allowed by `type_bits` with all `required` flags, preferring one that
// also has `preferred`; false when none has `required`.
bool find_memory_type(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits,
                      VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                      uint32_t* out);

// false: no host-visible memory can back a buffer (then nothing can be copied in or out).
// `allow_direct`: the device option "direct_host_access" (docs/devices.md).
bool choose_memory(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits,
                   bool allow_direct, MemoryChoice* out);

// The size a buffer of `bytes` is created with, so that freed buffers serve later requests of
// nearby sizes (vk_allocation_cache.h): 256 bytes at least, then four classes per doubling
// (2^k times 1, 1.25, 1.5, 1.75: at most a quarter more than asked) up to 64 MiB, and 64 KiB
// multiples above, where a quarter would be much memory.
uint64_t allocation_class(uint64_t bytes);

}  // namespace plaidml::devices::vulkan
