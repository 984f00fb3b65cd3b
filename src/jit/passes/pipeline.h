// The loop-pass pipeline: a named list of passes run on every kernel of a lowered program, each
// step timed, verified and, with PLAIDML_DUMP=1, printed to the log (plaidml::logger(), level
// warn, so the default level shows it). Tiling, vectorization and threading passes slot into
// the list in pipeline.cc.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "jit/lower/lower.h"
#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

struct PipelineOptions {
  bool dump = false;         // print the kernels after each pass (default: env PLAIDML_DUMP)
  bool verify = true;        // run the loop-IR verifier after each pass
  CpuTarget cpu;             // the CPU passes run when cpu.vector_bits > 0
};

PipelineOptions default_pipeline_options();

// Names of the passes run, in order ("simplify", ...).
std::vector<std::string> pipeline_pass_names();

// Runs the pipeline on every kernel of `program` in place. Errors are kInternal (a pass or the
// lowering broke an invariant).
Status run_pipeline(LoweredProgram& program,
                    const PipelineOptions& options = default_pipeline_options());

}  // namespace plaidml::jit::passes
