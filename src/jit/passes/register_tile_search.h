// The register tile of a blocked contraction: RM output rows times NV vectors of VL lanes held in
// vector registers while the reduction runs. Chosen by search under the register budget, not
// per shape: the tile that does the most FMAs per load (RM * NV / (RM + NV)), with a penalty for
// row and column edges that the full tile leaves to smaller tiles (slower, and more code).
// Where the column operand streams from L2 (cache_tile_search.h: its block stays in L2, not L1),
// a vector load weighs two broadcasts (RM * NV / (RM + 2 NV)): taller tiles, fewer vectors.
#pragma once

#include <cstdint>

#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

struct RegisterTile {
  int rows = 1;     // RM
  int vectors = 1;  // NV
  int lanes = 1;    // VL
};

// rows_extent: the blocked output rows (X); cols_extent: the unit-stride row (J); elem_bits: the
// accumulator's width. lanes == 0 in the result when J is shorter than one vector.
RegisterTile search_register_tile(int64_t rows_extent, int64_t cols_extent, int elem_bits,
                                  const CpuTarget& target, bool streamed_columns = false);

}  // namespace plaidml::jit::passes
