// Weight packing (CPU): a register-blocked contraction whose column operand is a constant read
// row by row along the tile's columns (a matmul's B, a conv's HWIO weights: KH*KW*CI rows of CO)
// reads a packed copy of it instead, made once when the constant is first used
// (jit/lower/panel_packing.h): each column tile's slice of every row lies in one contiguous
// panel. Unpacked, a tile's slice of the weights is a few floats per row CO floats apart, so the
// slice's lines fall into a few cache sets (with CO = 1024 floats, every row maps to the same L1
// set) and are evicted before the next row tile reads them; packed, a panel of a reduction block
// stays in L1 while every output row reads it (the layout oneDNN and GotoBLAS pack into).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"
#include "jit/loop/rewrite.h"
#include "jit/lower/lower.h"
#include "jit/passes/row_form_match.h"

namespace plaidml::jit::passes {

// A load of Match::value that reads a constant as source rows of `cols` columns, column j of
// the tile's row at element index cols * rho + j, rho affine in the reduction loops.
struct PackableLoad {
  loop::ExprPtr load;  // the scalar load in Match::value
  int source_slot = -1;
  int64_t rows = 0, cols = 0;
  loop::AffineIndex rho;  // the row, over the reduction loops' variables
};

// The constant load of m.value that panels of `width` columns can serve: the tile's columns start
// at 0 (the last panel is padded, and the columns past the last full vector are read by a
// masked vector), and the load's index is cols * rho + j. nullopt when there is none.
std::optional<PackableLoad> find_packable_load(const Match& m, int64_t width,
                                               const std::vector<BufferSlot>& slots);

// The slot of the load's constant packed in panels of `width` (an existing one, or a new slot
// appended to `slots`).
int packed_slot(const PackableLoad& load, int64_t width, std::vector<BufferSlot>& slots);

// The packed element index of lane offset `offset` (c * lanes, and within the last panel the
// masked vector's offset) in the column tile starting at `tile_start` (a multiple of width):
// panel tile_start / width, row rho.
loop::ExprPtr packed_index(const PackableLoad& load, int64_t width, loop::ExprPtr tile_start,
                           int64_t offset);

}  // namespace plaidml::jit::passes
