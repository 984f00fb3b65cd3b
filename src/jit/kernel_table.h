// The launches of a lowered program, with identical kernels compiled once.
//
// Networks repeat themselves: BERT's twelve layers lower to twelve copies of each kernel that
// differ only in the buffers they touch. A kernel takes its buffers as parameters
// (loop::parameters), so copies with equal forms are one compiled kernel launched with
// different argument lists. A form is everything the code generator reads of a kernel
// (loop::canonical_string plus its parameters' dtypes, and shapes where the generator reads
// them); its digest names the compiled kernel in the device's kernel library
// (jit/kernel_library.h), so that other programs, and other sizes of the same program, launch
// it too.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/hash.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

// What makes two kernels one compiled kernel, as the code generator that compiles them reads
// them.
enum class KernelForms {
  // GPU code: the kernel's text and its parameters' shapes (grids and tiles derive from them).
  kShapes,
  // CPU code: the text with the parallel loop's end left to the launch (the CPU ABI passes
  // [begin, end) of it) and the parameters' dtypes, so a kernel whose sizes all lie in its
  // parallel loop serves every size of it: rows of a sequence, elements of a coalesced map.
  kShapeClasses,
};

// One launch: compiled kernel `kernel` (an index into KernelTable::code.kernels) on the
// buffers of `args`, plan slots in the kernel's parameter order, over [0, parallel_extent) of
// its parallel loop (1: no parallel loop).
struct KernelCall {
  int kernel = 0;
  std::vector<int> args;
  int64_t parallel_extent = 1;
  double work = 0;  // estimated scalar operations, to decide whether to split the launch
};

struct KernelTable {
  // What code generation compiles: the program's slots and the first kernel of each class of
  // identical kernels, in order of first launch.
  LoweredProgram code;
  std::vector<Sha256Digest> forms;  // parallel to code.kernels: the digest of each one's form
  std::vector<KernelCall> calls;    // parallel to the lowered program's kernels
};

KernelTable build_kernel_table(const LoweredProgram& lowered, KernelForms forms);

}  // namespace plaidml::jit
