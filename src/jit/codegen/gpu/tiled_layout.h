// The plan of one tiled contraction kernel, between matching (contraction_match.h), tile
// search (tile_search.h) and the kernel it is written out as (tiled_kernel.h): which loads get
// workgroup-shared tiles, which guards are uniform (they gate the chunk loop) and which are
// evaluated per point. Device-neutral: the emitters only print the kernel.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/gpu/contraction_match.h"
#include "jit/codegen/gpu/tile_search.h"

namespace plaidml::jit::gpu {

struct StagedTile {
  ClassifiedLoad load;
  std::string name;  // the shared array (OpenCL __local, SPIR-V Workgroup)
  // The cooperative load walks k fastest when the load is contiguous along k (A[m, k]), else
  // the m/n side fastest (B[k, n]): neighbouring threads read neighbouring addresses.
  bool k_fastest = false;
  // Conjuncts of the path's guards reading only variables this tile knows (k, its side's
  // variable, uniform ones): they hold wherever the reference loads this element, and they
  // keep the access in bounds (lowering guards each access by its own variables).
  std::vector<loop::ExprPtr> safety;
};

struct TiledPlan {
  RegisterForm form;
  std::vector<StagedTile> tiles;
  // Path positions (before k) of uniform conditions: they gate the whole chunk loop.
  std::set<size_t> uniform_ifs;
  // Conditions evaluated at each point, in path order (the others).
  std::vector<loop::ExprPtr> point_guards;
  // No point guard and every load staged: each point of a register block runs the compute
  // step unconditionally (a branch per multiply-add costs more than the multiply-add). A point
  // past the output extents then reads the tiles' zero fill into an accumulator that is never
  // stored, and touches no memory outside the tiles.
  bool unguarded_points = false;
  // Every load staged and no guard reads memory: a point past the output extents touches only
  // the tiles (their zero fill) and its accumulator is never stored, so the compute step checks
  // only the point guards, not the extents: one condition per m point instead of one per point
  // (a predicate computed for each multiply-add costs an instruction beside it; on the H200 the
  // batch-32 3x3 convolutions ran 1.4x faster without).
  bool extent_free_points = false;
  // Zero-filled guards: the aggregation is a sum of products acc + x * y of two staged loads
  // from a constant +0 (or any integer) start, the points are extent-free, and every conjunct
  // of every point guard is a safety guard of x's tile. Where a point guard fails, x's tile holds
  // its zero fill and 0 * y adds nothing, so the compute step runs unguarded (on the H200 the
  // guards cost the padded 3x3 convolutions 1.4-1.9x). For a float y, 0 * y is NaN where y is
  // infinite or NaN and the reference has no term: each work-item then notes whether a value
  // it staged into y's tile was not finite, and a workgroup where one was recomputes its points
  // the reference's way, from global memory.
  struct ZeroFill {
    size_t zeroed_tile = 0;              // x's tile
    std::optional<size_t> checked_tile;  // y's tile, when y is a float
  };
  std::optional<ZeroFill> zero_fill;
  // Zero-filled with a checked tile: the kernel has the workgroup's non-finite flag, an array
  // after the tiles.
  bool checks_finite() const { return zero_fill && zero_fill->checked_tile; }
  TileProblem problem;
};

// The registers a thread reads a tile's operands into at each k step: RM for an m-side tile,
// RN for an n-side one, 1 for a k-only one; and which of them point (rm, rn) uses.
inline int operand_register_count(const StagedTile& t, const TileChoice& c) {
  return t.load.side == LoadSide::kM ? c.rm : t.load.side == LoadSide::kN ? c.rn : 1;
}
inline int operand_register_index(const StagedTile& t, int rm, int rn) {
  return t.load.side == LoadSide::kM ? rm : t.load.side == LoadSide::kN ? rn : 0;
}

// A tile's elements per k position: 1 for a k-only tile, else its side's block padded
// (padded_row).
inline int64_t tile_row(const StagedTile& t, const TileChoice& c) {
  if (t.load.side == LoadSide::kK) return 1;
  return t.load.side == LoadSide::kM ? padded_row(c.bm(), c.rm) : padded_row(c.bn(), c.rn);
}

// Splits a bool conjunction (BitAnd of bools) into its operands.
void conjuncts(const loop::ExprPtr& cond, std::vector<loop::ExprPtr>& out);

// The plan of a matched kernel; nullopt when no load can be staged.
std::optional<TiledPlan> plan_tiled(const RegisterForm& form);

// The launch of a tiled kernel: one workgroup of TX x TY threads per BN x BM output tile (n along
// dimension 0, m along 1), one per value of the other band loops along dimension 2.
LaunchDims tiled_launch(const TiledPlan& plan, const TileChoice& c);

}  // namespace plaidml::jit::gpu
