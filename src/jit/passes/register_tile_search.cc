#include "jit/passes/register_tile_search.h"

#include <algorithm>

namespace plaidml::jit::passes {
namespace {

constexpr int kMaxRows = 16;
constexpr int kMaxVectors = 8;

// Share of `extent` that full tiles of `step` cover; the rest runs in smaller tiles, which reuse
// their loads less.
double edge_efficiency(int64_t extent, int64_t step) {
  if (extent <= 0) return 0;
  int64_t covered = extent / step * step;
  return 0.75 + 0.25 * static_cast<double>(covered) / static_cast<double>(extent);
}

}  // namespace

RegisterTile search_register_tile(int64_t rows_extent, int64_t cols_extent, int elem_bits,
                                  const CpuTarget& target, bool streamed_columns) {
  RegisterTile best;
  best.lanes = 0;
  if (target.vector_bits < elem_bits || elem_bits <= 0) return best;
  int lanes = target.vector_bits / elem_bits;
  if (cols_extent < lanes) return best;
  int64_t max_vectors = std::min<int64_t>(kMaxVectors, cols_extent / lanes);
  int64_t max_rows = std::min<int64_t>(kMaxRows, std::max<int64_t>(1, rows_extent));
  double best_score = -1;
  for (int nv = 1; nv <= max_vectors; ++nv) {
    for (int rm = 1; rm <= max_rows; ++rm) {
      // Accumulators, the row of loaded vectors and one broadcast must fit the register file.
      if (rm * nv + nv + 1 > target.vector_registers) continue;
      // FMAs per load; a vector streamed from L2 costs two broadcasts from L1.
      double score = static_cast<double>(rm * nv) / (rm + (streamed_columns ? 2 : 1) * nv);
      score *= edge_efficiency(rows_extent, rm) * edge_efficiency(cols_extent, int64_t(nv) * lanes);
      // Each edge tile is one more copy of the micro-kernel to compile (cold compile time).
      int copies = (rows_extent % rm ? 2 : 1) * (cols_extent % (int64_t(nv) * lanes) ? 2 : 1);
      score *= 1.0 - 0.04 * (copies - 1);
      if (score > best_score) {
        best_score = score;
        best = RegisterTile{rm, nv, lanes};
      }
    }
  }
  return best;
}

}  // namespace plaidml::jit::passes
