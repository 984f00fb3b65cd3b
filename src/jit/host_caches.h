// The data-cache sizes of the host CPU, for the CPU scheduling passes (passes::CpuTarget). Read
// once from Linux's sysfs (cpu0's cache/index*/); where that is missing (other systems,
// containers without sysfs), the sizes of a common x86 core: 32 KiB L1d, 1 MiB L2.
#pragma once

#include <cstdint>

namespace plaidml::jit {

struct HostCaches {
  int64_t l1_bytes = 32 * 1024;
  int64_t l2_bytes = 1024 * 1024;
};

const HostCaches& host_caches();

}  // namespace plaidml::jit
