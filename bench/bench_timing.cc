#include "bench_timing.h"

namespace plaidml_bench {

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string timed_runs(const RunSettings& settings, const std::function<std::string()>& run_once,
                       CaseResult& result) {
  const double budget_ms = settings.max_seconds * 1e3;
  auto warmup_start = Clock::now();
  result.warmup = 0;
  const double warmup_ms = settings.warmup_seconds * 1e3;
  for (int i = 0; (i < settings.warmup || ms_since(warmup_start) < warmup_ms) &&
                  ms_since(warmup_start) < budget_ms;
       ++i) {
    std::string error = run_once();
    if (!error.empty()) return "warm-up run: " + error;
    ++result.warmup;
  }
  auto budget_start = Clock::now();
  for (int i = 0; i < settings.repeat; ++i) {
    auto start = Clock::now();
    std::string error = run_once();
    if (!error.empty()) return "timed run: " + error;
    result.run_ms.push_back(ms_since(start));
    if (int(result.run_ms.size()) >= settings.min_repeat && ms_since(budget_start) > budget_ms)
      break;
  }
  return "";
}

}  // namespace plaidml_bench
