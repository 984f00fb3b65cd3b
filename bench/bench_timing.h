// The timing loop every implementation shares, so that plaidml and its peers are timed the same
// way: warm-up runs, then timed runs, both bounded by the case's time budget.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "bench_result.h"

namespace plaidml_bench {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start);

// Calls run_once (which returns "" or what failed) settings.warmup times untimed (and on
// until settings.warmup_seconds have passed), then up to
// settings.repeat times timed into result.run_ms (result.warmup counts the warm-up runs done).
// Both stop early after settings.max_seconds: a slow implementation must not eat the time of the
// cases after it, yet at least one warm-up and settings.min_repeat timed runs happen.
// Returns "" or the failure of the run that failed.
std::string timed_runs(const RunSettings& settings, const std::function<std::string()>& run_once,
                       CaseResult& result);

}  // namespace plaidml_bench
