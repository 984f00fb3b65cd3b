// The memory limit's default (jit/host_memory.h: cgroup, rlimit and physical memory, each fed
// the text a machine might show, garbage included) and its resolution and checks
// (jit/memory_budget.h). The C API's messages are tested from C99 in tests/capi.
#include "jit/memory_budget.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::jit;

namespace {

// /proc/self/mountinfo of a hybrid (v1 + v2) host, as seen on the CI machine, with a cgroup2
// mount whose path needs escaping and lines that are not mounts at all.
constexpr const char* kHybridMountinfo =
    "23 1 0:21 / / rw,relatime - overlay overlay rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "42 31 0:38 / /mnt/my\\040cgroups rw,relatime shared:5 - cgroup2 cgroup2 rw\n"
    "garbage without fields\n"
    "43 31 0:39 / /sys/fs/cgroup/cpu - cgroup\n"
    "44 31 0:39 relative /x rw - cgroup2 cgroup2 rw\n";

constexpr const char* kHybridCgroup =
    "9:name=systemd:/\n"
    "4:memory:/process_api/9a0d\n"
    "3:cpuset:/\n"
    "0::/\n";

void expect_budget_status(const Status& s, StatusCode code, const std::string& message) {
  CHECK(s.code() == code);
  CHECK(s.message() == message);
}

using FakeFiles = std::map<std::string, std::string>;

FileReader fake_reader(const FakeFiles& files) {
  return [files](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

// Sets or unsets PLAIDML_MEMORY_LIMIT for one scope.
class MemoryLimitEnv {
 public:
  explicit MemoryLimitEnv(const char* value) {
    if (const char* old = std::getenv(kName)) old_ = old;
    if (value) {
      setenv(kName, value, 1);
    } else {
      unsetenv(kName);
    }
  }
  ~MemoryLimitEnv() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }

 private:
  static constexpr const char* kName = "PLAIDML_MEMORY_LIMIT";
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("host memory: cgroup limit files hold a number of bytes, 'max' or garbage") {
  CHECK(parse_cgroup_limit("1073741824\n") == uint64_t{1} << 30);
  CHECK(parse_cgroup_limit("  42 \n") == 42u);
  CHECK(parse_cgroup_limit("9223372036854771712\n") == 9223372036854771712u);  // v1 "unlimited"
  CHECK(parse_cgroup_limit("18446744073709551615") == UINT64_MAX);
  for (const char* bad : {"max\n", "", "\n", "0\n", "-1", "12abc", "1e9", "0x100", "1 2",
                          "18446744073709551616", "99999999999999999999999", "\xff\xfe"}) {
    INFO(bad);
    CHECK_FALSE(parse_cgroup_limit(bad).has_value());
  }
}

TEST_CASE("host memory: mountinfo gives cgroup2 and v1 memory mounts, skipping the rest") {
  std::vector<CgroupMount> m = parse_mountinfo(kHybridMountinfo);
  REQUIRE(m.size() == 3);
  CHECK(m[0].version == 1);
  CHECK(m[0].mount_point == "/sys/fs/cgroup/memory");
  CHECK(m[0].root == "/");
  CHECK(m[1].version == 2);
  CHECK(m[1].mount_point == "/sys/fs/cgroup/unified");
  CHECK(m[2].mount_point == "/mnt/my cgroups");  // \040 is a space
  CHECK(parse_mountinfo("").empty());
  CHECK(parse_mountinfo("\n\n - - - -\n1 2 3 4 5 6 - cgroup2\n").empty());
  // A bind mount of the same cgroup file system many times over is read a few times at most.
  std::string many;
  for (int i = 0; i < 100; ++i) {
    many += "1 1 0:1 / /c" + std::to_string(i) + " rw - cgroup2 cgroup2 rw\n";
  }
  CHECK(parse_mountinfo(many).size() == 4);
}

TEST_CASE("host memory: /proc/self/cgroup gives the v2 path and the v1 memory path") {
  CgroupPaths hybrid = parse_proc_cgroup(kHybridCgroup);
  CHECK(hybrid.unified == "/");
  CHECK(hybrid.memory == "/process_api/9a0d");
  CgroupPaths v2 = parse_proc_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n");
  CHECK(v2.unified == "/user.slice/user-1000.slice/session-3.scope");
  CHECK_FALSE(v2.memory.has_value());
  CgroupPaths colon = parse_proc_cgroup("0::/a:b\n");
  CHECK(colon.unified == "/a:b");
  CgroupPaths junk = parse_proc_cgroup("nonsense\n0:cpu\n2:memory:relative\n:::\n");
  CHECK_FALSE(junk.unified.has_value());
  CHECK_FALSE(junk.memory.has_value());
}

TEST_CASE("host memory: the limit files run from the process's cgroup up to the mount") {
  std::vector<CgroupMount> v2 = {{2, "/", "/sys/fs/cgroup/"}};
  CgroupPaths p;
  p.unified = "/a/b";
  CHECK(cgroup_limit_files(p, v2) == std::vector<std::string>{"/sys/fs/cgroup/a/b/memory.max",
                                                              "/sys/fs/cgroup/a/memory.max",
                                                              "/sys/fs/cgroup/memory.max"});
  // A container without a cgroup namespace: the mount's root is the container's cgroup.
  std::vector<CgroupMount> bound = {{2, "/docker/abc", "/sys/fs/cgroup"}};
  p.unified = "/docker/abc";
  CHECK(cgroup_limit_files(p, bound) == std::vector<std::string>{"/sys/fs/cgroup/memory.max"});
  p.unified = "/docker/other";  // outside the mount's root: nothing there applies
  CHECK(cgroup_limit_files(p, bound).empty());
  p.unified = "/a/../../etc";
  CHECK(cgroup_limit_files(p, v2).empty());
  // v1: the memory controller's own path and file name.
  CgroupPaths hybrid = parse_proc_cgroup(kHybridCgroup);
  CHECK(cgroup_limit_files(hybrid, {{1, "/", "/sys/fs/cgroup/memory"}}) ==
        std::vector<std::string>{"/sys/fs/cgroup/memory/process_api/9a0d/memory.limit_in_bytes",
                                 "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
                                 "/sys/fs/cgroup/memory/memory.limit_in_bytes"});
}

TEST_CASE("host memory: the least cgroup limit of every level binds, the rest is skipped") {
  FakeFiles files = {
      {"/proc/self/cgroup", "0::/a/b\n"},
      {"/proc/self/mountinfo", "1 1 0:1 / /cg rw - cgroup2 cgroup2 rw\n"},
      {"/cg/a/b/memory.max", "max\n"},
      {"/cg/a/memory.max", "8589934592\n"},  // 8 GiB, a parent's limit
      {"/cg/memory.max", "garbage"},
  };
  auto limit = cgroup_limit(fake_reader(files));
  REQUIRE(limit.has_value());
  CHECK(limit->bytes == uint64_t{8} << 30);
  CHECK(limit->source == "the cgroup limit in /cg/a/memory.max");
  files["/cg/a/b/memory.max"] = "4294967296\n";
  CHECK(cgroup_limit(fake_reader(files))->bytes == uint64_t{4} << 30);
  // Without mountinfo, the usual mount points are tried.
  FakeFiles usual = {{"/proc/self/cgroup", "0::/x\n4:memory:/y\n"},
                     {"/sys/fs/cgroup/x/memory.max", "1000\n"},
                     {"/sys/fs/cgroup/memory/y/memory.limit_in_bytes", "999\n"}};
  CHECK(cgroup_limit(fake_reader(usual))->bytes == 999u);
  // No /proc (a chroot), no mounts, only "max": no limit from cgroups.
  CHECK_FALSE(cgroup_limit(fake_reader({})).has_value());
  CHECK_FALSE(
      cgroup_limit(fake_reader({{"/proc/self/cgroup", "0::/\n"}, {"/proc/self/mountinfo", ""}}))
          .has_value());
  CHECK_FALSE(cgroup_limit(fake_reader({{"/proc/self/cgroup", "0::/\n"},
                                        {"/sys/fs/cgroup/memory.max", "max\n"}}))
                  .has_value());
}

TEST_CASE("host memory: rlimits, physical memory and the least of them") {
  constexpr uint64_t kInfinity = ~uint64_t{0};
  CHECK_FALSE(rlimit_bound(kInfinity, kInfinity, "RLIMIT_AS").has_value());
  CHECK_FALSE(rlimit_bound(0, kInfinity, "RLIMIT_AS").has_value());
  CHECK(rlimit_bound(1 << 20, kInfinity, "RLIMIT_AS")->bytes == 1u << 20);
  CHECK_FALSE(physical_bound(-1, 4096).has_value());
  CHECK_FALSE(physical_bound(1000, 0).has_value());
  CHECK_FALSE(physical_bound(INT64_MAX, 4096).has_value());  // overflows: not a real answer
  CHECK(physical_bound(1000, 4096)->bytes == 4096000u);
  CHECK(physical_bound(1000, 4096)->source == "physical memory");
  auto small = least(physical_bound(1000, 4096), rlimit_bound(5000, kInfinity, "RLIMIT_DATA"));
  CHECK(small->source == "RLIMIT_DATA");
  CHECK(least(std::nullopt, small)->bytes == 5000u);
  CHECK_FALSE(least(std::nullopt, std::nullopt).has_value());
  // The real default: positive, and never above physical memory.
  HostLimit here = default_host_limit();
  auto physical = physical_bound(sysconf(_SC_PHYS_PAGES), sysconf(_SC_PAGESIZE));
  REQUIRE(physical.has_value());
  CHECK(here.bytes > 0);
  CHECK(here.bytes <= physical->bytes);
}

TEST_CASE("memory budget: PLAIDML_MEMORY_LIMIT's byte counts") {
  CHECK(parse_byte_count("1048576") == 1048576);
  CHECK(parse_byte_count("8G") == int64_t{8} << 30);
  CHECK(parse_byte_count("8g") == int64_t{8} << 30);
  CHECK(parse_byte_count("512MiB") == int64_t{512} << 20);
  CHECK(parse_byte_count("1k") == 1024);
  CHECK(parse_byte_count("2T") == int64_t{2} << 40);
  CHECK(parse_byte_count("0") == 0);
  CHECK(parse_byte_count("9223372036854775807") == INT64_MAX);
  for (const char* bad : {"", "G", "8GB", "8 G", " 8G", "-1", "1.5G", "8E", "8Gi", "8iB",
                          "9223372036854775808", "8388608T", "lots"}) {
    INFO(bad);
    CHECK_FALSE(parse_byte_count(bad).has_value());
  }
}

TEST_CASE("memory budget: the option, then PLAIDML_MEMORY_LIMIT, then the default") {
  MemoryLimitEnv env("100K");
  auto option = resolve_memory_limit(4096);
  REQUIRE(option.has_value());
  CHECK(option->bytes == 4096u);
  CHECK(option->source == "PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT");
  auto from_env = resolve_memory_limit(0);
  REQUIRE(from_env.has_value());
  CHECK(from_env->bytes == 102400u);
  CHECK(from_env->source == "PLAIDML_MEMORY_LIMIT");
  expect_budget_status(resolve_memory_limit(-1).status(), StatusCode::kInvalidArgument,
                       "PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT must be a number of bytes >= 0 (0: "
                       "the default), got -1");
  {
    MemoryLimitEnv bad("8GB");
    expect_budget_status(resolve_memory_limit(0).status(), StatusCode::kInvalidArgument,
                         "PLAIDML_MEMORY_LIMIT must be a number of bytes, optionally with K, M, "
                         "G or T (powers of 1024: \"8G\", \"512MiB\"); got '8GB'");
    CHECK(resolve_memory_limit(1).has_value());  // the option wins; the variable is not read
  }
  for (const char* unset : {"0", ""}) {
    MemoryLimitEnv none(unset);
    auto fallback = resolve_memory_limit(0);
    REQUIRE(fallback.has_value());
    CHECK(fallback->bytes == default_host_limit().bytes);
    CHECK(fallback->source.rfind("the default: ", 0) == 0);
  }
}

TEST_CASE("memory budget: sizes for people") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.0 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes((1u << 20) - 1) == "1.0 MiB");  // never "1024.0 KiB"
  CHECK(format_bytes(100u << 20) == "100.0 MiB");
  CHECK(format_bytes(uint64_t{16862150656}) == "15.7 GiB");
  CHECK(format_bytes(UINT64_MAX) == "16.0 EiB");
}

TEST_CASE("memory budget: host-memory devices take the context's limit, others their own") {
  HostLimit host{64u << 20, "PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT"};
  devices::DeviceInfo cpu;
  cpu.unified_memory = true;
  cpu.memory_bytes = int64_t{1} << 40;
  devices::DeviceInfo gpu;
  gpu.memory_bytes = int64_t{1} << 30;
  MemoryBudget on_cpu("cpu:0", cpu, host), on_gpu("gpu:0", gpu, host);
  CHECK(on_cpu.bytes() == 64u << 20);
  CHECK(on_gpu.bytes() == 1u << 30);
  MemoryFigures m;
  m.inputs_bytes = 16;
  m.outputs_bytes = 100u << 20;
  expect_budget_status(on_cpu.check_run("f", m), StatusCode::kOutOfMemory,
                       "running 'f' on cpu:0 needs 100.0 MiB (inputs 16 B, outputs 100.0 MiB, "
                       "intermediates 0 B, constants 0 B), but the context's memory limit is "
                       "64.0 MiB (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  CHECK(on_gpu.check_run("f", m).is_ok());
  m.arena_bytes = m.constants_bytes = 1u << 30;
  expect_budget_status(on_gpu.check_run("", m), StatusCode::kOutOfMemory,
                       "running the program on gpu:0 needs 2.1 GiB (inputs 16 B, outputs 100.0 "
                       "MiB, intermediates 1.0 GiB, constants 1.0 GiB), but gpu:0 has 1.0 GiB of "
                       "memory");
  // Figures that print alike are given in bytes; exactly the budget fits.
  Shape shape(DType::U8, {(64 << 20) + 1});
  expect_budget_status(on_cpu.check_allocation(shape, (64u << 20) + 1), StatusCode::kOutOfMemory,
                       "a buffer of shape u8[67108865] needs 67108865 bytes, but the context's "
                       "memory limit is 67108864 bytes (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  CHECK(on_cpu.check_allocation(shape, 64u << 20).is_ok());
  // No limit at all (nothing said how much memory there is): everything passes.
  HostLimit none;  // borrowed by the budget, so it must outlive it
  MemoryBudget unbounded("cpu:0", cpu, none);
  m.outputs_bytes = UINT64_MAX;
  CHECK(unbounded.bytes() == 0);
  CHECK(unbounded.check_run("f", m).is_ok());
}

TEST_CASE("host memory: /proc/meminfo's MemAvailable plus SwapFree") {
  const char* meminfo =
      "MemTotal:       24000000 kB\nMemFree:         1000000 kB\n"
      "MemAvailable:    2000000 kB\nSwapTotal:       1000000 kB\nSwapFree:          500000 kB\n";
  CHECK(parse_meminfo_available(meminfo) == uint64_t{2500000} * 1024);
  CHECK(parse_meminfo_available("MemAvailable: 4 kB\n") == 4096u);  // no swap line
  CHECK_FALSE(parse_meminfo_available("MemTotal: 4 kB\n").has_value());  // a kernel before 3.14
  CHECK_FALSE(parse_meminfo_available("XMemAvailable: 4 kB\n").has_value());
  CHECK_FALSE(parse_meminfo_available("MemAvailable: lots\n").has_value());
  CHECK_FALSE(parse_meminfo_available("MemAvailable: 4 MB\n").has_value());
  CHECK_FALSE(parse_meminfo_available("MemAvailable: 99999999999999999999 kB\n").has_value());
  CHECK_FALSE(parse_meminfo_available("").has_value());
  CHECK(available_host_memory().value_or(0) > 0);  // this machine's /proc says something
}

TEST_CASE("memory budget: under the default limit, a large run must fit what is available") {
  HostLimit host{uint64_t{64} << 30, "the default: physical memory"};
  host.available = [] { return std::optional<uint64_t>(uint64_t{2} << 30); };
  devices::DeviceInfo cpu;
  cpu.unified_memory = true;
  MemoryBudget budget("cpu:0", cpu, host);
  MemoryFigures m;
  m.outputs_bytes = uint64_t{3} << 30;
  expect_budget_status(budget.check_run("f", m), StatusCode::kOutOfMemory,
                       "running 'f' on cpu:0 needs 3.0 GiB (inputs 0 B, outputs 3.0 GiB, "
                       "intermediates 0 B, constants 0 B), but the host has 2.0 GiB available "
                       "now (MemAvailable + SwapFree in /proc/meminfo; PLAIDML_MEMORY_LIMIT sets "
                       "a limit of your own)");
  expect_budget_status(budget.check_allocation(Shape(DType::U8, {int64_t{3} << 30}),
                                               uint64_t{3} << 30),
                       StatusCode::kOutOfMemory,
                       "a buffer of shape u8[3221225472] needs 3.0 GiB, but the host has 2.0 GiB "
                       "available now (MemAvailable + SwapFree in /proc/meminfo; "
                       "PLAIDML_MEMORY_LIMIT sets a limit of your own)");
  // Up to 1 GiB nothing is read (most runs), and what is available is not asked.
  host.available = []() -> std::optional<uint64_t> { FAIL("asked"); return 0; };
  MemoryBudget small("cpu:0", cpu, host);
  m.outputs_bytes = uint64_t{1} << 30;
  CHECK(small.check_run("f", m).is_ok());
  // A limit of the user's own has no `available`: it is theirs to choose.
  HostLimit own{uint64_t{64} << 30, "PLAIDML_MEMORY_LIMIT"};
  m.outputs_bytes = uint64_t{3} << 30;
  CHECK(MemoryBudget("cpu:0", cpu, own).check_run("f", m).is_ok());
  // When /proc cannot say, only the limit counts.
  host.available = [] { return std::optional<uint64_t>(); };
  CHECK(MemoryBudget("cpu:0", cpu, host).check_run("f", m).is_ok());
}

TEST_CASE("memory figures saturate instead of wrapping") {
  MemoryFigures m;
  m.outputs_bytes = uint64_t{1} << 63;
  m.inputs_bytes = uint64_t{1} << 63;
  m.arena_bytes = 5;
  CHECK(m.peak_bytes() == UINT64_MAX);
}
