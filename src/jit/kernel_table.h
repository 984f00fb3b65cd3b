// The launches of a lowered program, with identical kernels compiled once.
//
// Networks repeat themselves: BERT's twelve layers lower to twelve copies of each kernel that
// differ only in the buffers they touch. A kernel takes its buffers as parameters
// (loop::parameters), so copies with equal canonical forms (loop::canonical_string, plus the
// parameters' shapes) are one compiled kernel launched with different argument lists.
#pragma once

#include <vector>

#include "jit/lower/lower.h"

namespace plaidml::jit {

// One launch: compiled kernel `kernel` (an index into KernelTable::code.kernels) on the
// buffers of `args`, plan slots in the kernel's parameter order.
struct KernelCall {
  int kernel = 0;
  std::vector<int> args;
};

struct KernelTable {
  // What code generation compiles: the program's slots and the first kernel of each class of
  // identical kernels, in order of first launch.
  LoweredProgram code;
  std::vector<KernelCall> calls;  // parallel to the lowered program's kernels
};

KernelTable build_kernel_table(const LoweredProgram& lowered);

}  // namespace plaidml::jit
