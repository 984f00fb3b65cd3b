// Runs one benchmark case through the public C API: cold compile, warm-up, timed runs on device
// buffers created once, then a float64 spot check of a few output elements.
#pragma once

#include <plaidml/plaidml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_cases.h"

namespace plaidml_bench {

struct RunSettings {
  int warmup = 3;
  int repeat = 20;
  // Timed runs stop early once they have taken this long (at least min_repeat of them still
  // run), so a slow device cannot blow the time budget of a remote run.
  double max_seconds = 20;
  int min_repeat = 3;
  int spot_checks = 8;
  uint64_t seed = 1;
};

struct SpotCheck {
  int checked = 0;
  int failed = 0;
  double max_error = 0;  // max |got - want| / scale (scale: sum of |terms|)
  std::string first_failure;
};

struct CaseResult {
  std::string error;              // "" when the case ran; else what failed (the rest may be empty)
  double compile_ms = 0;          // wall time of the first plaidml_compile (cold)
  double library_compile_ms = 0;  // the library's own compile time (plaidml_stats)
  double first_run_ms = 0;        // the first plaidml_execute after compiling (first launch)
  int warmup = 0;
  std::vector<double> run_ms;  // timed runs
  SpotCheck check;
};

CaseResult run_case(plaidml_context* context, const BenchCase& c, const RunSettings& settings);

}  // namespace plaidml_bench
