// The default memory limit of a context (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT left at 0): the
// least of the host's physical memory, the memory limit of the process's cgroup (v2 memory.max
// or v1 memory.limit_in_bytes, at the process's own level and every level above it, since a
// parent's limit binds its children too) and the process's RLIMIT_AS and RLIMIT_DATA.
//
// Each source may be absent (no cgroup file system, a limit of "max", RLIM_INFINITY) or hold
// anything (a container's /proc, a truncated read): a source that does not read as a positive
// number of bytes does not count, and when none does there is no limit. The parsers take text,
// so tests feed them what a machine might show.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plaidml::jit {

// One bound on host memory, and where it comes from in the user's terms ("physical memory",
// "RLIMIT_DATA", "the cgroup limit in /sys/fs/cgroup/a/memory.max").
struct HostLimit {
  uint64_t bytes = 0;
  std::string source;
  // Set for the default limit only (a limit of the user's own is theirs to choose): the host
  // memory available at the moment of asking, or nullopt when it cannot say.
  std::function<std::optional<uint64_t>()> available;
};

// The smaller of two bounds (either may be absent).
std::optional<HostLimit> least(std::optional<HostLimit> a, std::optional<HostLimit> b);

// A cgroup limit file's content: a decimal number of bytes, with surrounding white space.
// nullopt for "max" (no limit), 0, and anything that is not such a number.
std::optional<uint64_t> parse_cgroup_limit(std::string_view text);

// A cgroup file system that can limit memory, from /proc/self/mountinfo.
struct CgroupMount {
  int version = 2;          // 2: cgroup2; 1: a cgroup (v1) hierarchy with the memory controller
  std::string root;         // the cgroup at the mount's root ("/" unless namespaced or bound)
  std::string mount_point;  // "/sys/fs/cgroup"
};
std::vector<CgroupMount> parse_mountinfo(std::string_view text);

// The process's cgroups, from /proc/self/cgroup: the v2 one (line "0::/path") and the v1
// memory controller's ("4:memory:/path"). Malformed lines are skipped.
struct CgroupPaths {
  std::optional<std::string> unified;
  std::optional<std::string> memory;
};
CgroupPaths parse_proc_cgroup(std::string_view text);

// The limit files that bind the process: for each mount of its cgroup's version, the file in
// the process's cgroup folder and in every folder above it up to the mount point, nearest
// first. A cgroup outside a mount's root has none under that mount.
std::vector<std::string> cgroup_limit_files(const CgroupPaths& paths,
                                            const std::vector<CgroupMount>& mounts);

// Reads a small text file (the pseudo-files of /proc and /sys): nullopt when it cannot.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;
std::optional<std::string> read_small_file(const std::string& path);

// The least cgroup limit that applies to the process, reading /proc/self/cgroup,
// /proc/self/mountinfo and the limit files through `read`.
std::optional<HostLimit> cgroup_limit(const FileReader& read);

// A resource limit's soft value as a bound: nullopt for `infinity` (RLIM_INFINITY) and 0.
std::optional<HostLimit> rlimit_bound(uint64_t value, uint64_t infinity, const char* name);

// What the host can still give, from /proc/meminfo's text: MemAvailable (the kernel's estimate
// of what can be allocated without swapping, reclaimable caches included) plus SwapFree, in
// bytes. nullopt when MemAvailable is missing or not a number (kernels before 3.14).
std::optional<uint64_t> parse_meminfo_available(std::string_view meminfo);
std::optional<uint64_t> available_host_memory();  // reads /proc/meminfo

// Physical memory as a bound: nullopt when sysconf does not say (-1) or overflows.
std::optional<HostLimit> physical_bound(int64_t pages, int64_t page_size);

// The default limit of this process, from the real sources; bytes 0 when none says.
HostLimit default_host_limit();

}  // namespace plaidml::jit
