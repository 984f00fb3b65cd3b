// Tile sizes of a tiled contraction kernel (tiled_layout.h): a small search over thread
// blocks TX x TY, register blocks RN x RM and reduction chunks BK, within the device's limits
// (GpuTarget), ranked by a cost model, so small or skinny problems get small tiles.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "jit/codegen/gpu/gpu_target.h"

namespace plaidml::jit::gpu {

// The shape of one contraction as the tiler sees it.
struct TileProblem {
  int64_t n = 1;        // extent of the innermost band loop (workgroup dim 0)
  int64_t m = 1;        // extent of the next band loop (dim 1); 1 when there is none
  int64_t k = 1;        // extent of the staged reduction loop
  int64_t uniform = 1;  // product of the other band extents (workgroups along dim 2)
  int64_t serial = 1;   // trips of the reduction loops outside k (run by every workgroup)
  bool has_m = true;    // false: TY = RM = 1
  // Bytes per tile element summed over the staged loads of each side (0: no such tile).
  int64_t m_tile_bytes = 0;  // [BK][BM] tiles
  int64_t n_tile_bytes = 0;  // [BK][BN] tiles
  int64_t k_tile_bytes = 0;  // [BK] tiles
  int global_loads = 0;      // loads read from global memory at every point
  // How many tiles of each side are staged.
  int m_tiles = 0, n_tiles = 0, k_tiles = 0;
};

struct TileChoice {
  int tx = 1, ty = 1;  // threads per workgroup along n and m
  int rn = 1, rm = 1;  // register block per thread along n and m
  int bk = 1;          // reduction chunk staged per barrier pair
  int64_t bn() const { return int64_t{tx} * rn; }
  int64_t bm() const { return int64_t{ty} * rm; }
  bool operator==(const TileChoice& o) const {
    return tx == o.tx && ty == o.ty && rn == o.rn && rm == o.rm && bk == o.bk;
  }
};

// A work-item's registers along a side of R registers are groups of this many consecutive
// tile elements (4 where R is a multiple of 4, else 2 or 1), the groups a thread row apart, so
// that a compiler reads each group as one vector load from the tile (on the H200 through
// OpenCL the batch-32 3x3 convs ran 1.12-1.25x faster and matmul 4096 1.22x than with the
// registers a thread row apart, bench/RESULTS.md).
int register_group(int registers);
// A tile row (BM or BN elements) padded against bank conflicts: by one element, or by a group
// where the rows hold groups (so that each group stays aligned).
inline int64_t padded_row(int64_t side, int registers) {
  const int group = register_group(registers);
  return side + (group > 1 ? group : 1);
}

// Shared-memory bytes the tiles of `c` take (rows padded as padded_row says).
int64_t local_bytes(const TileProblem& p, const TileChoice& c);

// The elements each work-item stages per chunk, over all tiles: the registers that hold the
// next chunk while this one is computed (tiled_kernel.h).
int64_t staged_per_thread(const TileProblem& p, const TileChoice& c);
// At most this many: beyond, with the accumulators and operands, the register file spills.
inline constexpr int64_t kMaxStagedPerThread = 16;

// The model's estimate for `c` (lower is better); exposed for tests.
double tile_cost(const TileProblem& p, const TileChoice& c, const GpuTarget& target);

// Whether `c` is within the limits below for `p` on `target`.
bool tiles_fit(const TileProblem& p, const TileChoice& c, const GpuTarget& target);

// What a measured search (jit/tile_measure.h) times: the model's choice first, then shapes of
// other proportions that fit, in the order they ranked on the H200 (tile_search.cc's measured
// list: 128 x 64 and 64 x 128 blocks first, then square ones), at most `max` of them, all
// distinct.
std::vector<TileChoice> tile_candidates(const TileProblem& p, const GpuTarget& target, size_t max);

// The cheapest choice within the limits (TX*TY <= max_workgroup_size, local tiles <= half of
// local_memory_bytes, RM*RN <= 64, at most 16384 accumulators TX*TY*RM*RN per workgroup, at
// most kMaxStagedPerThread staged elements per work-item and chunk);
// nullopt when tiling does not pay (nothing staged, or extents too small for a tile to beat
// one work-item per output).
std::optional<TileChoice> choose_tiles(const TileProblem& p, const GpuTarget& target);

}  // namespace plaidml::jit::gpu
