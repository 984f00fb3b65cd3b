// Runs one benchmark case through the public C API: cold compile, warm-up, timed runs on device
// buffers created once, then a float64 spot check of a few output elements (bench_check.h).
#pragma once

#include <plaidml/plaidml.h>

#include "bench_cases.h"
#include "bench_result.h"

namespace plaidml_bench {

// Parses and compiles only (compile_ms, library_compile_ms): the cost of a program's first use.
CaseResult compile_case(plaidml_context* context, const BenchCase& c);

CaseResult run_case(plaidml_context* context, const BenchCase& c, const RunSettings& settings);

}  // namespace plaidml_bench
