#include "jit/passes/cache_tile_search.h"

#include <algorithm>

namespace plaidml::jit::passes {
namespace {

constexpr int64_t kReductionStep = 16;  // KC: multiples of a cache line of f32

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The largest multiple of `unit` within `limit` (`unit` at least), then made equal over the
// blocks that it leaves: 2048 in 1024 + 1024, not 1360 + 688.
int64_t even_block(int64_t extent, int64_t limit, int64_t unit) {
  int64_t block = std::max(unit, limit / unit * unit);
  if (block >= extent) return extent;
  return ceil_div(ceil_div(extent, ceil_div(extent, block)), unit) * unit;
}

}  // namespace

bool wants_cache_tiles(int64_t reduction, int64_t cols, int elem_bytes, const CpuTarget& target) {
  return reduction * cols * elem_bytes * target.threads > target.l2_bytes / 4 &&
         reduction > kReductionStep;
}

CacheTile search_cache_tile(int64_t rows, int64_t reduction, int64_t cols, int elem_bytes,
                            int tile_rows, int64_t tile_width, const CpuTarget& target) {
  if (!wants_cache_tiles(reduction, cols, elem_bytes, target)) return CacheTile{};
  CacheTile t;
  t.kc = even_block(reduction, target.l1_bytes / 4 / (tile_rows * elem_bytes), kReductionStep);
  t.nc = even_block(cols, target.l2_bytes / 8 / (t.kc * elem_bytes), tile_width);
  t.mc = even_block(rows, target.l2_bytes / 4 / (t.nc * elem_bytes), tile_rows);
  // Blocks for every thread, evenly (the busiest thread at most 8 % over the average: ResNet-50's
  // 2048-channel 1x1 convs in 9 blocks ran 5 + 4 on two threads): narrower column blocks first,
  // then fewer rows a block.
  int64_t threads = target.threads;
  auto even = [&](int64_t blocks) {
    return blocks >= threads && ceil_div(blocks, threads) * threads * 100 <= blocks * 108;
  };
  auto blocks = [&] { return ceil_div(rows, t.mc) * ceil_div(cols, t.nc); };
  for (int64_t limit = t.nc - tile_width; !even(blocks()) && limit >= tile_width;
       limit -= tile_width) {
    t.nc = even_block(cols, limit, tile_width);
  }
  for (int64_t limit = t.mc - tile_rows; blocks() < threads && limit >= tile_rows;
       limit -= tile_rows) {
    t.mc = even_block(rows, limit, tile_rows);
  }
  if (t.nc >= cols) t.nc = 0;
  return t;
}

}  // namespace plaidml::jit::passes
