// How emit_llvm_object splits a program's kernels into LLVM modules. Parts compile on their own
// threads, so a plan's code generation uses the cores the context runs on (LLVM's time is
// nearly all per function, and modules share nothing). Kernels the loop passes vectorized and
// those they left scalar never share a part: the pass pipeline is chosen per module, and the
// first need no LLVM vectorizer or unroller while the second do (llvm_codegen.cc). Measured on
// GPT-2 small's 28 kernels (AMD EPYC, one thread): 605 ms in one module, 438 ms apart.
#pragma once

#include <cstddef>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::llvmgen {

// Statements and expressions of the kernel, counted as a tree (a shared subexpression once per
// use, as the emitter emits it), unrolled loops times their unroll count.
size_t kernel_size(const loop::Kernel& kernel);

// The estimate of a kernel's compile time that balances the parts: its size plus a fixed cost
// per function, larger for scalar kernels (LLVM vectorizes and unrolls their loops).
size_t compile_weight(const loop::Kernel& kernel);

// The least compile weight worth a part of its own (30 ms of LLVM time at the fitted rate; more
// on a slower CPU). A part costs a thread, a TargetMachine, a module and an archive member to
// link whatever its size, so most programs of a test suite or a small model, a few kernels each,
// are one part: split, they took longer (bench/RESULTS.md, "CPU code generation: parts worth
// their cost").
constexpr size_t kMinPartWeight = 4000;

// The kernels' indices in non-empty parts, each in program order. Kernels weighing less than
// two `min_part_weight` in all are one part, both kinds together. Otherwise vectorized and
// scalar kernels are apart, in max(kinds present, min(threads, total / min_part_weight)) parts
// (min_part_weight 0: no limit) shared between the two kinds in proportion to their weight (at
// least one each), then filled longest first onto the lightest part of their kind.
// Deterministic.
std::vector<std::vector<size_t>> partition_kernels(const std::vector<loop::Kernel>& kernels,
                                                   int threads,
                                                   size_t min_part_weight = kMinPartWeight);

}  // namespace plaidml::jit::llvmgen
