// Text form of loop-IR kernels: golden tests, PLAIDML_DUMP output and artifact-cache keys
// (the printed kernel must determine the generated code: print every field that matters).
#pragma once

#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::loop {

std::string to_string(const Expr& expr);
std::string to_string(const Kernel& kernel);
// The kernel without its name, slot params[i] printed as "p<i>" (params: loop::parameters):
// kernels with equal canonical strings compute the same thing on corresponding buffers.
// Where the parallel loop's end comes from: printed, or a run-time argument that the printed
// kernel leaves open ("end"). The CPU ABI passes [begin, end) of the parallel loop
// (codegen/artifact.h), so CPU kernels that differ only in that bound are one compiled kernel.
enum class ParallelBound { kPrinted, kRunTime };
std::string canonical_string(const Kernel& kernel, const std::vector<int>& params,
                             ParallelBound bound = ParallelBound::kPrinted);

}  // namespace plaidml::jit::loop
