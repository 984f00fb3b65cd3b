// The command line of plaidml_cpu_bench (usage in cpu_bench.cc).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bench_result.h"

namespace plaidml_bench {

// Budgets that keep the whole run (14 cases x 2 thread counts x 3 implementations) within about
// 5 minutes on 2 cores, while plaidml's slow kernels (seconds a run today) still get min_repeat
// timed runs and fast ones up to `repeat`: many samples, as a shared machine is noisy.
inline RunSettings cpu_run_defaults() {
  RunSettings s;
  s.warmup = 3;
  s.repeat = 100;
  s.max_seconds = 4;
  s.min_repeat = 3;
  return s;
}

struct Options {
  std::string device = "cpu:0";
  std::vector<int> threads = {1, 2};  // in the order given
  std::set<std::string> impls = {"plaidml", "onednn", "openblas"};
  std::set<std::string> cases;  // empty: all
  RunSettings run = cpu_run_defaults();
  int dispatch_calls = 2000;  // 0: skip the dispatch measurement
  std::string cache_dir;      // "": PLAIDML_CACHE_DIR as set, else a fresh temporary folder
  bool compile_only = false;
  bool list = false;
};

// Fills o from argv; on a bad argument prints it with the usage and returns false.
bool parse_args(int argc, char** argv, Options& o);

}  // namespace plaidml_bench
