// Correctness checks of a case's output on the host: a float64 spot check of a few elements
// (bench_oracle.h) for every implementation, and plaidml's whole output against a peer's.
#pragma once

#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_result.h"

namespace plaidml_bench {

// Checks n output elements (the first, the last and a spread between) of `got` (row-major over
// c.output_dims) against the float64 oracle on the same inputs.
SpotCheck spot_check(const BenchCase& c, const HostInputs& inputs, const std::vector<float>& got,
                     int n);

// Every element of got against want (same size and layout), within a tolerance relative to the
// largest |want|: float32 sums in different orders differ by a few ulps of their magnitude.
Agreement compare_outputs(const std::string& peer, const std::vector<float>& got,
                          const std::vector<float>& want);

// "ok", "FAIL" or "none" (nothing checked), from the spot check and the agreement together.
std::string check_status(const CaseResult& r);

}  // namespace plaidml_bench
