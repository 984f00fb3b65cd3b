// Opt-in profiling of one Runtime: compiles, kernel runs and host<->device transfers as timed
// events, exported as a Chrome trace (JSON that Perfetto and chrome://tracing open) and as a
// table of the kernels that took the most time.
// Kernel times are measured on the host around a launch followed by a wait for the device, so a
// profiled run serialises its kernels (no overlap between launches): the figures say where the
// time goes, not how fast an unprofiled run is.
// Thread safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace plaidml::jit {

struct ProfileEvent {
  std::string name;      // kernel symbol, "compile <program>", "read", "write", ...
  std::string category;  // "kernel", "compile", "transfer"
  double start_us = 0;   // since the profiler was made
  double duration_us = 0;
  std::string device;    // "cpu:0"
  std::vector<std::string> origins;  // what the kernel computes (ir::Node::origin)
  uint64_t bytes = 0;    // bytes the kernel reads and writes, or the transfer moves
  double flops = 0;      // estimated operations of a kernel
};

class Profiler {
 public:
  // Events kept at most; later ones are counted as dropped (a long profiled loop must not grow
  // the process without bound).
  static constexpr size_t kMaxEvents = 1 << 20;

  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Microseconds since the profiler was made.
  double now_us() const;
  // Never throws: an event that finds no memory is counted as dropped, like one over the limit.
  void record(ProfileEvent event) noexcept;
  void clear();

  // {"traceEvents": [...]} with one complete ("X") event per record, one track per category.
  std::string chrome_trace() const;
  // The `top` kernels by total time (name, calls, total and mean ms, share of kernel time,
  // GFLOP/s, GB/s, origins), then the totals of compiles and transfers.
  std::string summary(size_t top) const;

 private:
  std::atomic<bool> enabled_{false};
  std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
  mutable std::mutex mutex_;
  std::vector<ProfileEvent> events_;
  uint64_t dropped_ = 0;
};

// Times a scope into `profiler` when it is enabled (a no-op otherwise).
class ProfileScope {
 public:
  ProfileScope(Profiler& profiler, ProfileEvent event);
  ~ProfileScope();
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

 private:
  Profiler& profiler_;
  bool on_;
  ProfileEvent event_;
};

}  // namespace plaidml::jit
