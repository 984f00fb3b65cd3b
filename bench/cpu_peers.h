// The peers the CPU bench measures beside plaidml in the same process and run: oneDNN (its
// matmul, convolution and softmax primitives) and OpenBLAS (sgemm; convolutions as im2col +
// sgemm). A peer missing when the bench was configured is listed as absent, with the reason.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_result.h"

namespace plaidml_bench {

struct Peer {
  std::string name;     // "onednn", "openblas": the "impl" of its JSON lines
  std::string version;  // "2.6.3"
  std::string detail;   // threading runtime, ISA, core type: what makes its numbers what they are
  std::string absent;   // why it cannot run ("" when it can)
  // Runs case c with `threads` threads on make_inputs(c, settings.seed), timed and spot-checked
  // like plaidml (bench_timing.h, bench_check.h). Never throws.
  std::function<CaseResult(const BenchCase& c, int threads, const RunSettings& settings)> run;
};

// oneDNN first (plaidml's output is compared with the first peer that has the operation).
std::vector<Peer> cpu_peers();

// One peer's case, prepared (primitives created, weights reordered, buffers allocated):
// run() computes it once, output() gives the result row-major over c.output_dims.
struct PreparedCase {
  std::function<void()> run;
  std::function<std::vector<float>()> output;
  std::string detail;
};

// The common part of every peer's run: times prepare() as the compile, then the first run, the
// warm-up and timed runs, then spot-checks the output (kept when settings.keep_output). An
// exception from prepare or a run becomes the result's error.
CaseResult run_prepared(const BenchCase& c, const HostInputs& inputs, const RunSettings& settings,
                        const std::function<PreparedCase()>& prepare);

// Each peer's implementation (cpu_peer_onednn.cc, cpu_peer_openblas.cc), compiled only when the
// library was found; cpu_peers() lists an absent peer in its place otherwise.
Peer onednn_peer();
Peer openblas_peer();

}  // namespace plaidml_bench
