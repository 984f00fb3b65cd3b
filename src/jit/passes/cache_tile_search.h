// Cache tiling of a register-blocked contraction with one reduction loop (matmul, 1x1 conv):
// when the reduction's panel of the column operand (K x N, B in A x B) does not stay in L2, the
// reduction runs in blocks of KC and the rows in macro blocks of MC (a multiple of the register
// tile's rows), GotoBLAS's loop order:
//   for rows in blocks of MC (parallel) { for k in blocks of KC { for register tiles {...} } }
// so a KC x N block of B stays in L2 while every register tile of the macro block reads it.
// The accumulators then go to memory once per KC block. The sizes are found by search: the
// fewest bytes moved between L2 and beyond (B once per macro block, C twice per KC block) under
// the L2 budget, with enough macro blocks for every thread.
#pragma once

#include <cstdint>

#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

struct CacheTile {
  int64_t kc = 0;  // reduction block; 0: no cache tiling (the panel fits)
  int64_t mc = 0;  // rows per macro block, a multiple of the register tile's rows
};

CacheTile search_cache_tile(int64_t rows, int64_t reduction, int64_t cols, int elem_bytes,
                            int tile_rows, const CpuTarget& target);

}  // namespace plaidml::jit::passes
