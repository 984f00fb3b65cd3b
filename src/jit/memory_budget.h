// The memory budget of a run or an allocation, checked before anything is allocated: a program
// whose planned peak does not fit, or a buffer larger than the budget, is kOutOfMemory with the
// figures, instead of an allocation the kernel's OOM killer answers by ending the process.
//
// A device whose buffers live in host memory (the CPU, OpenCL devices with host-unified memory)
// is bounded by the context's memory limit: PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT when set, else
// the variable PLAIDML_MEMORY_LIMIT, else the default of host_memory.h. Any other device is
// bounded by the memory it reports. The budget bounds each execute and each allocation on its
// own; it does not add up the buffers an application holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/types/shape.h"
#include "devices/device.h"
#include "jit/host_memory.h"
#include "jit/runtime.h"

namespace plaidml::jit {

// PLAIDML_MEMORY_LIMIT's syntax: a decimal number of bytes, optionally followed by K, M, G or T
// (alone or with "iB": powers of 1024), e.g. "8G", "512MiB", "1048576". nullopt for anything
// else, or for more than INT64_MAX bytes.
std::optional<int64_t> parse_byte_count(std::string_view text);

// The context's limit: `option` when positive, else PLAIDML_MEMORY_LIMIT when set and not 0,
// else default_host_limit(). kInvalidArgument for a negative option or a variable that is not
// a byte count (the message names it and gives the syntax).
Expected<HostLimit> resolve_memory_limit(int64_t option);

// A size for people: "16 B", "1.5 KiB", "100.0 MiB", "15.7 GiB".
std::string format_bytes(uint64_t bytes);

// What one execute or allocation on a device may use. Borrows `host`, which must outlive it.
class MemoryBudget {
 public:
  MemoryBudget(std::string device_id, const devices::DeviceInfo& info, const HostLimit& host);

  uint64_t bytes() const { return bytes_; }  // 0: no limit

  // kOutOfMemory when the execute's peak exceeds the budget: "running 'f' on cpu:0 needs 100.0
  // MiB (inputs 16 B, outputs 100.0 MiB, intermediates 0 B, constants 0 B), but the context's
  // memory limit is 64.0 MiB (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)".
  Status check_run(const std::string& program_name, const MemoryFigures& figures) const;
  // kOutOfMemory when one buffer of `bytes` exceeds the budget.
  Status check_allocation(const Shape& shape, uint64_t bytes) const;

 private:
  // The need ("100.0 MiB") and what bounds it ("the context's memory limit is 64.0 MiB
  // (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)"), both in bytes where rounding would show them equal.
  struct Texts {
    std::string need, bound;
  };
  Texts texts(uint64_t need) const;
  // Under the default limit, a need above kCheckAvailableAbove is also checked against what the
  // host has available now (physical memory is the default's bound, but other processes may
  // hold most of it, and then the OOM killer, not a status, would answer): the message's bound
  // when it is short, else "". Reading /proc/meminfo costs microseconds, nothing next to
  // touching a gigabyte, and nothing at all for the small runs that are most runs.
  std::string unavailable(uint64_t need) const;
  static constexpr uint64_t kCheckAvailableAbove = uint64_t{1} << 30;

  std::string device_id_;
  const HostLimit* host_ = nullptr;  // set for host-memory devices
  uint64_t bytes_ = 0;
};

}  // namespace plaidml::jit
