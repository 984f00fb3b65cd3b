#include "jit/passes/cache_tile_search.h"

#include <algorithm>
#include <limits>

namespace plaidml::jit::passes {
namespace {

constexpr int64_t kReductionStep = 16;  // KC candidates: multiples of a cache line of f32

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Slowdown from uneven work: the busiest thread's share over the average.
double imbalance(int64_t blocks, int threads) {
  if (threads <= 1) return 1.0;
  return static_cast<double>(ceil_div(blocks, threads) * threads) / static_cast<double>(blocks);
}

}  // namespace

CacheTile search_cache_tile(int64_t rows, int64_t reduction, int64_t cols, int elem_bytes,
                            int tile_rows, const CpuTarget& target) {
  CacheTile none;
  // Half of L2 for the B panel leaves room for A's rows, C's tiles and the other data.
  if (reduction * cols * elem_bytes <= target.l2_bytes / 2 || reduction <= kReductionStep) {
    return none;
  }
  int64_t budget = target.l2_bytes * 3 / 4;
  double best_cost = std::numeric_limits<double>::infinity();
  CacheTile best = none;
  for (int64_t kc = kReductionStep; kc < reduction; kc += kReductionStep) {
    for (int64_t mc = tile_rows; mc < rows + tile_rows; mc += tile_rows) {
      if ((kc * cols + mc * cols + mc * kc) * elem_bytes > budget) break;
      double moved = static_cast<double>(ceil_div(rows, mc)) * double(reduction) * double(cols) +
                     2.0 * double(ceil_div(reduction, kc)) * double(rows) * double(cols);
      double cost = moved * imbalance(ceil_div(rows, mc), target.threads);
      if (cost < best_cost) {
        best_cost = cost;
        best = CacheTile{kc, std::min(mc, rows)};
      }
    }
  }
  return best;
}

}  // namespace plaidml::jit::passes
