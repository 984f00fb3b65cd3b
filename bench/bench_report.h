// Turns case results into one JSON line per case and implementation (stdout, read by
// bench/compare_gpu.py and bench/compare_cpu.py) and a human table (stderr).
#pragma once

#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_result.h"

namespace plaidml_bench {

struct Timing {
  double min_ms = 0;
  double median_ms = 0;
};
Timing summarize(std::vector<double> run_ms);

// Fields shared by every line of one implementation in one run.
struct RunInfo {
  std::string device_id;
  std::string device_name;
  std::string version;
  std::string impl = "plaidml";  // "plaidml", "onednn", "openblas"
  int threads = 0;               // 0: not reported (the device's default)
};

// {"impl": "plaidml", "case": ..., "min_ms": ..., "gflops": ..., "status": "ok"|"error"|"n/a"}
std::string json_line(const RunInfo& info, const BenchCase& c, const CaseResult& r);

// plaidml's compile figures: ", \"library_compile_ms\": ..., \"kernels_compiled\": ...".
std::string compile_fields(const CaseResult& r);

// A JSON string literal (quotes and escapes) and a JSON number (null for NaN or infinity), for
// other lines of the same stream.
std::string json_string(const std::string& s);
std::string json_number(double v);

// The first column holds `label` (the case name, or more) padded to label_width.
std::string table_header(int label_width = 22);
std::string table_row(const std::string& label, const BenchCase& c, const CaseResult& r,
                      int label_width = 22);

}  // namespace plaidml_bench
