// Cache tiling of a register-blocked contraction with one reduction loop (matmul, 1x1 conv):
// when the reduction's panel of the column operand (K x N, B in A x B: the weights) does not
// stay in half of L2, GotoBLAS's loop order with blocks of all three dimensions:
//   for (column block of NC, row block of MC) pairs (parallel) {
//     for k in blocks of KC { for register tiles of rows { for register tiles of columns {...} } }
//   }
// A KC x NC block of B stays in L2 while every register tile of rows streams it from there; a
// tile's KC x RM slice of A stays in L1 while it meets every column tile of the block; the
// accumulators go to memory once per KC block. The blocks:
// - KC: the longest whose A slice of RM rows fills a quarter of L1 (the streamed B lines need
//   the rest), so that C goes to memory as seldom as possible;
// - NC: the widest whose KC x NC block of B fills an eighth of L2: in a model the weights come
//   from memory, and while one block is read the next is prefetched (register_block.cc), so
//   both stay in L2 beside C's block and A's rows; and the kernel's first block, which nothing
//   prefetched, is short. Cold 768 x 768 and 768 x 3072 layers of BERT (a stack of 48 and of
//   24) on a Xeon core: 0.88 and 0.83 of the old schedule's time with this, 1.03 and 0.90 with
//   blocks of 3/8 of L2;
// - MC: the most rows whose C block (MC x NC) fills a quarter of L2;
// each then made equal over its blocks, and the (column, row) blocks many enough for the threads
// (columns split first: each thread then reads only its columns' share of B).
// BERT-base on a Xeon (Sapphire Rapids) core: 0.82 of the time with the weights' panels
// outermost (the schedule before these tiles) at 1 thread, 0.83 at 2 (docs/cpu-schedule.md).
#pragma once

#include <cstdint>

#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

struct CacheTile {
  int64_t kc = 0;  // reduction block; 0: no cache tiling (the panel fits)
  int64_t mc = 0;  // rows per macro block, a multiple of the register tile's rows
  int64_t nc = 0;  // columns per macro block, a multiple of the register tile's; 0: all
};

// Whether a reduction x cols panel of B (elem_bytes each) wants cache tiles: the panels that
// the threads read leave a quarter of L2 (without cache tiles the rows split between the threads
// and every thread reads the whole panel, in a model from memory, while its first row tile does
// little else, and then from L2 beside the rows it reads; with them the column blocks split
// between the threads and each block is prefetched during the one before), and the reduction
// has more than one block's minimum (16 steps).
bool wants_cache_tiles(int64_t reduction, int64_t cols, int elem_bytes, const CpuTarget& target);

// rows x reduction times reduction x cols, elem_bytes each; the register tile has tile_rows
// rows and tile_width columns. No tiles (kc == 0) where wants_cache_tiles is false.
CacheTile search_cache_tile(int64_t rows, int64_t reduction, int64_t cols, int elem_bytes,
                            int tile_rows, int64_t tile_width, const CpuTarget& target);

}  // namespace plaidml::jit::passes
