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

// The kernels' indices in non-empty parts, each in program order: vectorized and scalar kernels
// apart, and max(threads, kinds present) parts in all, shared between the two kinds in
// proportion to their weight (at least one each), then filled longest first onto the lightest
// part of their kind. Deterministic.
std::vector<std::vector<size_t>> partition_kernels(const std::vector<loop::Kernel>& kernels,
                                                   int threads);

}  // namespace plaidml::jit::llvmgen
