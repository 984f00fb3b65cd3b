// The memory plan of a compiled program, made at compile time from the kernels' order: every
// temporary (an intermediate a kernel writes and later kernels read) lives from the first kernel
// that touches it to the last, and temporaries whose lives do not overlap share one block of
// the program's arena. Blocks are device buffers allocated once per concurrent execute and kept
// by the plan between executes (an execute takes a free arena or makes one), so a warm execute
// allocates only the outputs it is not given.
//
// Greedy by first use, in kernel order: a temporary takes the smallest free block that holds it,
// else grows the largest free block, else opens a new one; its block is free again after its
// last kernel (never within: a kernel's operands and results never share a block).
#pragma once

#include <cstdint>
#include <vector>

#include "jit/lower/lower.h"
#include "jit/runtime.h"

namespace plaidml::jit {

struct MemoryPlan {
  std::vector<int> block_of;          // per slot: its arena block (kTemp), else -1
  std::vector<int> first_kernel;      // per slot: the first kernel that touches it (kTemp)
  std::vector<uint64_t> block_bytes;  // per block
  uint64_t arena_bytes = 0;           // the blocks' total
  uint64_t unshared_bytes = 0;        // what the temporaries would take one buffer each
};

MemoryPlan plan_memory(const LoweredProgram& lowered);

// PLAIDML_DEBUG_POISON_ARENA=1 (for tests): before the first kernel that touches a temporary,
// its block is filled with 0xff bytes (NaN as floats, -1 as integers), so a kernel that reads
// an intermediate it should not (one another temporary still needs, or before it is written)
// gives a wrong result instead of a lucky right one.
bool poison_arena();

MemoryFigures memory_figures(const LoweredProgram& lowered, const MemoryPlan& plan);

}  // namespace plaidml::jit
