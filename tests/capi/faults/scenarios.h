// The scenarios the fault-injection sweep runs (fault_sweep_test.cc): each a sequence of public
// C API calls with hand-computed expected results, written to run while the failing allocator
// is armed (fault_run.h says what that asks of them).
#pragma once

#include "capi/faults/fault_run.h"

namespace plaidml::faults {

// Where a scenario may write: a folder the sweep empties before every run, so that each run
// starts from the same state (an empty disk cache, no saved program).
struct FaultEnv {
  char scratch[512];
};

struct Scenario {
  const char* name;
  void (*run)(FaultRun& run, const FaultEnv& env);
};

// Context options, context creation, device listing and selection, statistics.
void scenario_context(FaultRun& run, const FaultEnv& env);
// Tile text parsed, inspected, printed; buffers; execute twice (allocated and given outputs);
// profiling trace and summary.
void scenario_tile(FaultRun& run, const FaultEnv& env);
// A program from builder calls: an input, a constant, a contraction, an elementwise call and
// an op-library op (softmax); compile, memory figures, execute.
void scenario_builder(FaultRun& run, const FaultEnv& env);
// Reverse-mode gradients of a program, executed.
void scenario_gradient(FaultRun& run, const FaultEnv& env);
// A program with a constant saved to a file, loaded back and executed; the keyed program cache.
void scenario_files(FaultRun& run, const FaultEnv& env);
// Kernels and plans stored in a disk cache by one context and reused by a second.
void scenario_disk_cache(FaultRun& run, const FaultEnv& env);
// Misuse that must give its own status and message (parse error, unknown function, shapes that
// do not fit, wrong sizes, the memory limit, a missing file, an unknown loss).
void scenario_errors(FaultRun& run, const FaultEnv& env);

// Opens a context on the CPU with 2 threads and the disk cache in cache_dir ("" turns it off:
// most scenarios run without it, so that every run compiles the same way).
inline bool open_context(FaultRun& run, Context& context, const char* cache_dir) {
  Options options;
  if (!run.ok(plaidml_context_options_create(options.out()), "plaidml_context_options_create")) {
    return false;
  }
  return run.ok(
             plaidml_context_options_set_int(options.get(), PLAIDML_CONTEXT_OPTION_NUM_THREADS, 2),
             "plaidml_context_options_set_int") &&
         run.ok(plaidml_context_options_set_string(options.get(), PLAIDML_CONTEXT_OPTION_DEVICE,
                                                   "cpu:0"),
                "plaidml_context_options_set_string(DEVICE)") &&
         run.ok(plaidml_context_options_set_string(options.get(), PLAIDML_CONTEXT_OPTION_CACHE_DIR,
                                                   cache_dir),
                "plaidml_context_options_set_string(CACHE_DIR)") &&
         run.ok(plaidml_context_create(options.get(), context.out()), "plaidml_context_create");
}

inline constexpr Scenario kScenarios[] = {
    {"context", scenario_context},   {"tile", scenario_tile},   {"builder", scenario_builder},
    {"gradient", scenario_gradient}, {"files", scenario_files}, {"disk_cache", scenario_disk_cache},
    {"errors", scenario_errors},
};

}  // namespace plaidml::faults
