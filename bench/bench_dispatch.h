// The fixed cost of running an already compiled program: plaidml_execute of a tiny kernel (a
// 4-element add) served from the plan cache, where the arithmetic is nothing and what is left is
// the dispatch (argument binding, cache lookup, launch, synchronisation).
#pragma once

#include <plaidml/plaidml.h>

#include <string>

namespace plaidml_bench {

struct DispatchResult {
  std::string error;  // "" when it ran
  int calls = 0;      // timed plaidml_execute calls
  double min_us = 0;
  double median_us = 0;
  double p90_us = 0;
  int64_t compiles = 0;    // plan compiles during the timed calls (0 on a cache hit)
  int64_t cache_hits = 0;  // plan-cache hits during the timed calls (one per call)
  bool output_ok = false;  // the last call's sums are right
};

// Compiles the add once, makes 100 untimed calls, then times `calls` calls one by one.
DispatchResult measure_dispatch(plaidml_context* context, int calls);

// One JSON line: {"kind": "dispatch", "impl": "plaidml", "threads": ..., "median_us": ...}.
std::string dispatch_json(const DispatchResult& r, int threads);

}  // namespace plaidml_bench
