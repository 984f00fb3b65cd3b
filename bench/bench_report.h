// Turns case results into one JSON line per case (stdout, read by bench/compare_gpu.py) and a
// human table (stderr).
#pragma once

#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_runner.h"

namespace plaidml_bench {

struct Timing {
  double min_ms = 0;
  double median_ms = 0;
};
Timing summarize(std::vector<double> run_ms);

// Fields shared by every line of one run.
struct RunInfo {
  std::string device_id;
  std::string device_name;
  std::string version;
};

// {"impl": "plaidml", "case": ..., "min_ms": ..., "gflops": ..., "status": "ok"|"error", ...}
std::string json_line(const RunInfo& info, const BenchCase& c, const CaseResult& r);

std::string table_header();
std::string table_row(const BenchCase& c, const CaseResult& r);

}  // namespace plaidml_bench
