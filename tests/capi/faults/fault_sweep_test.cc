// Fault injection through the C API (issue 18; docs/reliability.md, "Out of memory"): each
// scenario of scenarios.h runs once per allocation point N, with the failing allocator
// (tests/support/alloc_faults.h) failing its N-th allocation, until a run makes fewer than N.
// Every run must end in one of two ways: a call returned a status (OUT_OF_MEMORY, with a
// message) and the scenario closed everything it opened; or the failure was absorbed (a disk
// cache write, a log line) and every result still equals the hand-computed one. No run may
// crash, and under ASan no run may leak (LeakSanitizer checks the whole process at exit).
//
// A full sweep reruns the scenario once per point, so its time grows with the square of the
// points (29 s of CPU for all seven in release, 113 s under ASan). CI sweeps every N up to
// kDenseBound, then kSampledPoints more spread evenly over the rest (a stride fixed by the point
// count), and the last point; PLAIDML_FAULTS_FULL=1 sweeps every N.
// PLAIDML_FAULTS_SCENARIO=<name> limits the sweep to one scenario's test, and
// PLAIDML_FAULTS_TRACE=<N> prints the call stack of that scenario's N-th allocation instead of
// sweeping. Under LeakSanitizer, PLAIDML_FAULTS_LEAKS=1 checks for leaks after every run (slow),
// to name the point whose failure path leaked.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "capi/faults/scenarios.h"
#include "support/alloc_faults.h"

// LeakSanitizer's check on demand; NULL without it.
extern "C" int __lsan_do_recoverable_leak_check() __attribute__((weak));

namespace plaidml::faults {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kDenseBound = 100;
constexpr uint64_t kSampledPoints = 150;

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

// A private folder for the whole test program; PLAIDML_CACHE_DIR (the keyed program cache)
// points inside it, so no run touches a folder that other tests share.
// Removed when the program exits. In memory (/dev/shm) where there is one: each of the
// thousands of runs empties its folder, which took 9 ms a run on the CI machine's ext4 (a
// removed folder is discarded on the disk), against 0.1 ms on tmpfs.
const fs::path& scratch_root() {
  struct Root {
    fs::path path;
    Root() {
      std::error_code error;
      fs::path base = fs::is_directory("/dev/shm", error) && access("/dev/shm", W_OK) == 0
                          ? fs::path("/dev/shm")
                          : fs::temp_directory_path();
      std::string pattern = (base / "plaidml-faults-XXXXXX").string();
      if (mkdtemp(pattern.data()) != nullptr) path = pattern;
    }
    ~Root() {
      std::error_code ignored;
      if (!path.empty()) fs::remove_all(path, ignored);
    }
  };
  static const Root root;
  REQUIRE_FALSE(root.path.empty());
  return root.path;
}

// Empties the scenario's folder, so that each run starts from the same disk state.
FaultEnv fresh_env(const char* scenario) {
  // Only the CPU: no GPU driver is loaded (PoCL and lavapipe are not ours to fail, and the
  // first context loads the plugins, so this is set before it).
  setenv("OCL_ICD_VENDORS", "/nonexistent/no_opencl_vendors", 1);
  setenv("VK_DRIVER_FILES", "/nonexistent/no_vulkan_driver.json", 1);
  fs::path dir = scratch_root() / scenario;
  fs::remove_all(dir);
  fs::create_directories(dir / "keyed");
  setenv("PLAIDML_CACHE_DIR", (dir / "keyed").c_str(), 1);
  FaultEnv env{};
  std::snprintf(env.scratch, sizeof env.scratch, "%s", dir.c_str());
  return env;
}

struct Outcome {
  FaultRun run;
  testing::AllocFaultCount count;
};

// Runs the scenario with its fail_at-th allocation failed (0: none).
Outcome run_once(const Scenario& scenario, uint64_t fail_at) {
  FaultEnv env = fresh_env(scenario.name);
  Outcome out;
  testing::alloc_faults_arm(fail_at);
  scenario.run(out.run, env);
  out.count = testing::alloc_faults_disarm();
  return out;
}

// A run with nothing injected: every call OK, every result right.
void require_clean(const Scenario& scenario, const Outcome& o) {
  INFO("scenario ", scenario.name);
  INFO("failed call: ", o.run.call(), ": ", o.run.message());
  INFO("wrong result: ", o.run.wrong_what());
  REQUIRE_FALSE(o.run.failed());
  REQUIRE_FALSE(o.run.wrong_result());
}

struct Tally {
  uint64_t runs = 0;
  uint64_t statuses = 0;    // runs that ended with a status
  uint64_t absorbed = 0;    // runs that absorbed the failure with right results
  std::string absorbed_at;  // the first few of those points, for PLAIDML_FAULTS_TRACE
};

// Checks one run with an injected failure.
void check_injected(const Scenario& scenario, uint64_t n, const Outcome& o, Tally* tally) {
  ++tally->runs;
  if (o.run.wrong_result()) {
    FAIL_CHECK(std::string(scenario.name)
               << ": allocation " << n << " failed, and a call returned OK with a "
               << "wrong result: " << o.run.wrong_what());
  }
  if (!o.run.failed()) {
    if (++tally->absorbed <= 12) tally->absorbed_at += " " + std::to_string(n);
    return;
  }
  ++tally->statuses;
  if (o.run.status() != PLAIDML_STATUS_OUT_OF_MEMORY || o.run.message()[0] == '\0') {
    FAIL_CHECK(std::string(scenario.name)
               << ": allocation " << n << " failed, and " << o.run.call() << " returned "
               << plaidml_status_name(o.run.status()) << ": \"" << o.run.message()
               << "\" (want OUT_OF_MEMORY with a message)");
  }
}

uint64_t next_point(uint64_t n, uint64_t last, bool full) {
  if (full || n < kDenseBound) return n + 1;
  uint64_t rest = last > kDenseBound ? last - kDenseBound : 0;
  uint64_t stride = std::max<uint64_t>(1, (rest + kSampledPoints - 1) / kSampledPoints);
  if (n < last && n + stride > last) return last;  // the last point is always tried
  return n + stride;
}

void sweep(const Scenario& scenario) {
  std::string only = env_or("PLAIDML_FAULTS_SCENARIO", "");
  if (!only.empty() && only != scenario.name) return;
  // The first run pays for what a process does once (LLVM's set-up, the plugin list): the
  // points of later runs are the same from run to run.
  require_clean(scenario, run_once(scenario, 0));
  Outcome counted = run_once(scenario, 0);
  require_clean(scenario, counted);
  const uint64_t points = counted.count.allocations;
  REQUIRE(points > 0);
  if (const char* trace = std::getenv("PLAIDML_FAULTS_TRACE")) {
    testing::alloc_faults_trace(true);
    Outcome o = run_once(scenario, std::strtoull(trace, nullptr, 10));
    testing::alloc_faults_trace(false);
    std::printf("%s: allocation %s: %s %s: %s%s%s\n", scenario.name, trace,
                o.run.failed() ? plaidml_status_name(o.run.status()) : "absorbed", o.run.call(),
                o.run.message(), o.run.wrong_result() ? "; WRONG: " : "", o.run.wrong_what());
    return;
  }
  const bool full = env_or("PLAIDML_FAULTS_FULL", "0") == "1";
  const bool leaks_each =
      env_or("PLAIDML_FAULTS_LEAKS", "0") == "1" && __lsan_do_recoverable_leak_check != nullptr;
  auto start = std::chrono::steady_clock::now();
  Tally tally;
  for (uint64_t n = 1;; n = next_point(n, points, full)) {
    Outcome o = run_once(scenario, n);
    if (!o.count.injected) {
      // Fewer allocations than n: the sweep is past the last point.
      require_clean(scenario, o);
      break;
    }
    check_injected(scenario, n, o, &tally);
    if (leaks_each && __lsan_do_recoverable_leak_check() != 0) {
      FAIL(std::string(scenario.name)
           << ": allocation " << n << " failed, and its failure path leaked");
    }
  }
  // After all of that, the same calls still give the right results.
  require_clean(scenario, run_once(scenario, 0));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "faults %s: %llu allocation points, %llu runs (%s): %llu statuses, %llu absorbed "
      "(at%s), %.1f s\n",
      scenario.name, static_cast<unsigned long long>(points),
      static_cast<unsigned long long>(tally.runs), full ? "every point" : "sampled",
      static_cast<unsigned long long>(tally.statuses),
      static_cast<unsigned long long>(tally.absorbed), tally.absorbed_at.c_str(), seconds);
  CHECK(tally.runs > 0);
}

const Scenario& scenario_named(const char* name) {
  for (const Scenario& s : kScenarios) {
    if (std::strcmp(s.name, name) == 0) return s;
  }
  FAIL("no scenario " << name);
  return kScenarios[0];
}

}  // namespace

TEST_CASE("faults: context") { sweep(scenario_named("context")); }
TEST_CASE("faults: tile") { sweep(scenario_named("tile")); }
TEST_CASE("faults: builder") { sweep(scenario_named("builder")); }
TEST_CASE("faults: gradient") { sweep(scenario_named("gradient")); }
TEST_CASE("faults: files") { sweep(scenario_named("files")); }
TEST_CASE("faults: disk_cache") { sweep(scenario_named("disk_cache")); }
TEST_CASE("faults: errors") { sweep(scenario_named("errors")); }

}  // namespace plaidml::faults
