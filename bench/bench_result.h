// What one implementation (plaidml or a peer) measured on one case, and the settings it ran
// under: plain data shared by the runners, the checks and the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace plaidml_bench {

struct RunSettings {
  int warmup = 3;
  // Warm-up goes on past `warmup` runs until it has taken this long: a GPU idling at a low
  // clock takes tens of milliseconds to reach its boost clock, longer than a few runs of a
  // sub-millisecond kernel (the H200's SM clock sits at 345 MHz between processes).
  double warmup_seconds = 0;
  int repeat = 20;
  // Timed runs stop early once they have taken this long (at least min_repeat of them still
  // run), so a slow device cannot blow the time budget of a remote run. Warm-up stops at it too.
  double max_seconds = 20;
  int min_repeat = 3;
  int spot_checks = 8;
  uint64_t seed = 1;
  bool keep_output = false;  // keep the output on the host (CaseResult::output) for comparing
};

struct SpotCheck {
  int checked = 0;
  int failed = 0;
  double max_error = 0;  // max |got - want| / scale (scale: sum of |terms|)
  std::string first_failure;
};

// plaidml's whole output against a peer's (bench_check.h).
struct Agreement {
  std::string with;  // the peer's name; "" when nothing was compared
  double max_abs_diff = 0;
  double tolerance = 0;
  bool ok = true;
  std::string first_failure;
};

struct CaseResult {
  std::string error;              // "" when the case ran; else what failed (the rest may be empty)
  std::string not_applicable;     // why this implementation has no such operation ("" if it has)
  double compile_ms = 0;          // wall time of the first compile (plaidml_compile, or a peer's
                                  // primitive creation and weight reorder)
  double library_compile_ms = 0;  // the library's own compile time (plaidml_stats)
  int64_t kernels_compiled = -1;  // kernels plaidml generated code for in that compile; -1: peer
  int64_t kernel_disk_hits = -1;  // compiles served from the on-disk kernel cache (0 or 1)
  double first_run_ms = 0;        // the first run after compiling (first launch)
  int warmup = 0;                 // warm-up runs done
  std::vector<double> run_ms;     // timed runs
  SpotCheck check;
  Agreement agreement;
  std::string detail;         // how a peer ran it ("brg:avx512_core", "im2col + sgemm")
  double others_cores = -1;   // cores other processes used meanwhile (bench_contention.h); -1: n/a
  double self_cores = -1;     // cores this process used meanwhile; -1: n/a
  std::vector<float> output;  // when RunSettings::keep_output
};

}  // namespace plaidml_bench
