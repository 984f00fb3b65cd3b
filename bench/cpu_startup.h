// plaidml_cpu_bench --compile-only: the start-up cost of a process, every case's program
// compiled once on a fresh context and nothing run. Run twice on one --cache-dir (see
// bench/run_cpu.sh), the second process measures a cached start: with the on-disk kernel cache
// it should compile no kernel at all.
#pragma once

#include <vector>

#include "bench_cases.h"
#include "cpu_bench_options.h"

namespace plaidml_bench {

// One {"kind": "compile"} line per case, then {"kind": "startup"} with the totals and the
// library's compile statistics. Returns the process exit status.
int run_compile_only(const Options& o, const std::vector<BenchCase>& cases);

}  // namespace plaidml_bench
