#include "bench_contention.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

namespace plaidml_bench {

namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Busy CPU seconds of the whole machine since boot: the "cpu" line of /proc/stat without idle
// and iowait (user nice system idle iowait irq softirq steal ..., in clock ticks).
double machine_busy_seconds() {
  std::ifstream stat("/proc/stat");
  std::string label;
  long long v[8] = {};
  if (!(stat >> label) || label != "cpu") return -1;
  for (long long& x : v) {
    if (!(stat >> x)) return -1;
  }
  const long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  return double(busy) / double(sysconf(_SC_CLK_TCK));
}

double self_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

ContentionMeter::ContentionMeter()
    : start_wall_(wall_seconds()),
      start_busy_(machine_busy_seconds()),
      start_self_(self_cpu_seconds()) {}

double ContentionMeter::others_cores() const {
  const double busy = machine_busy_seconds();
  const double wall = wall_seconds() - start_wall_;
  if (start_busy_ < 0 || busy < 0 || wall < kMinSeconds) return -1;
  const double others = (busy - start_busy_) - (self_cpu_seconds() - start_self_);
  return others > 0 ? others / wall : 0;
}

double ContentionMeter::self_cores() const {
  const double wall = wall_seconds() - start_wall_;
  return wall < kMinSeconds ? -1 : (self_cpu_seconds() - start_self_) / wall;
}

}  // namespace plaidml_bench
