// The tile search: device limits respected, tile sizes follow the problem's shape.
#include <doctest/doctest.h>

#include "jit/codegen/gpu/tile_search.h"

namespace plaidml::jit::gpu {
namespace {

TileProblem matmul(int64_t m, int64_t n, int64_t k) {
  TileProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.m_tile_bytes = 4;
  p.n_tile_bytes = 4;
  p.m_tiles = 1;
  p.n_tiles = 1;
  return p;
}

GpuTarget big_gpu() {
  GpuTarget t;
  t.max_workgroup_size = 1024;
  t.local_memory_bytes = 49152;
  t.compute_units = 80;
  return t;
}

TEST_CASE("a small device gets tiles within its workgroup and local memory limits") {
  GpuTarget small;
  small.max_workgroup_size = 64;
  small.local_memory_bytes = 4096;
  small.compute_units = 4;
  for (auto p : {matmul(1024, 1024, 1024), matmul(64, 64, 64), matmul(8, 512, 300)}) {
    auto c = choose_tiles(p, small);
    REQUIRE(c.has_value());
    CHECK(c->tx * c->ty <= 64);
    CHECK(local_bytes(p, *c) <= 2048);
    CHECK(c->rm * c->rn <= 64);
  }
}

TEST_CASE("each work-item stages at most kMaxStagedPerThread elements a chunk") {
  // 64 threads with 8 x 8 registers: 64 x 64 tiles, BK 32: 32 * 64 / 64 elements per tile.
  CHECK(staged_per_thread(matmul(1024, 1024, 1024), TileChoice{8, 8, 8, 8, 32}) == 64);
  // 256 threads, 4 x 4 registers, BK 16: 16 * 64 / 256 per tile, and a k-only tile's 16 / 256.
  TileProblem with_k = matmul(1024, 1024, 1024);
  with_k.k_tiles = 1;
  CHECK(staged_per_thread(with_k, TileChoice{16, 16, 4, 4, 16}) == 4 + 4 + 1);
  for (auto p : {matmul(1024, 1024, 1024), matmul(4096, 4096, 4096), matmul(100352, 64, 576)}) {
    auto c = choose_tiles(p, big_gpu());
    REQUIRE(c.has_value());
    CHECK(staged_per_thread(p, *c) <= kMaxStagedPerThread);
  }
}

TEST_CASE("a large square problem on a large device gets large register-blocked tiles") {
  auto c = choose_tiles(matmul(2048, 2048, 2048), big_gpu());
  REQUIRE(c.has_value());
  CHECK(c->bm() * c->bn() >= 32 * 32);
  CHECK(c->rm * c->rn >= 4);
  CHECK(c->tx * c->ty <= 1024);
  CHECK(local_bytes(matmul(2048, 2048, 2048), *c) <= 49152 / 2);
}

TEST_CASE("a device with few compute units still gets a workgroup whose accumulators fit") {
  GpuTarget few = big_gpu();
  few.compute_units = 2;
  auto c = choose_tiles(matmul(1024, 1024, 1024), few);
  REQUIRE(c.has_value());
  CHECK(int64_t{c->tx} * c->ty * c->rm * c->rn <= 16384);
}

TEST_CASE("skinny and small problems get small tiles") {
  auto skinny = choose_tiles(matmul(4096, 2, 512), big_gpu());
  REQUIRE(skinny.has_value());
  CHECK(skinny->bn() <= 4);
  auto small = choose_tiles(matmul(24, 24, 64), big_gpu());
  REQUIRE(small.has_value());
  auto large = choose_tiles(matmul(2048, 2048, 2048), big_gpu());
  REQUIRE(large.has_value());
  CHECK(small->bm() * small->bn() < large->bm() * large->bn());
  // Enough workgroups to spread a mid-size problem over the compute units.
  auto mid = choose_tiles(matmul(256, 256, 256), big_gpu());
  REQUIRE(mid.has_value());
  CHECK((256 / mid->bm()) * (256 / mid->bn()) >= 16);
}

TEST_CASE("tiling does not pay for tiny extents or when nothing is staged") {
  CHECK_FALSE(choose_tiles(matmul(2, 2, 2), big_gpu()).has_value());
  CHECK_FALSE(choose_tiles(matmul(64, 64, 2), big_gpu()).has_value());
  TileProblem none = matmul(64, 64, 64);
  none.m_tile_bytes = none.n_tile_bytes = 0;
  none.global_loads = 2;
  CHECK_FALSE(choose_tiles(none, big_gpu()).has_value());
}

TEST_CASE("without an m loop the thread block is one row") {
  TileProblem p = matmul(1, 4096, 256);
  p.has_m = false;
  p.m_tile_bytes = 0;
  p.k_tile_bytes = 4;
  auto c = choose_tiles(p, big_gpu());
  REQUIRE(c.has_value());
  CHECK(c->ty == 1);
  CHECK(c->rm == 1);
}

TEST_CASE("tile candidates: the model's choice first, then distinct shapes that fit") {
  GpuTarget t = big_gpu();
  for (auto p : {matmul(4096, 4096, 4096), matmul(100352, 64, 256), matmul(49, 512, 2048)}) {
    std::vector<TileChoice> c = tile_candidates(p, t, 6);
    REQUIRE(c.size() >= 2);
    CHECK(c.size() <= 6);
    CHECK(c[0] == *choose_tiles(p, t));
    for (size_t i = 0; i < c.size(); ++i) {
      CHECK(tiles_fit(p, c[i], t));
      for (size_t j = 0; j < i; ++j) CHECK_FALSE(c[i] == c[j]);
      if (i > 0) CHECK(c[i].bm() < 2 * p.m);  // no block mostly padding
    }
  }
  CHECK(tile_candidates(matmul(4096, 4096, 4096), t, 1).size() == 1);
}

TEST_CASE("tile candidates: a problem without an m side gets one row of threads") {
  TileProblem p = matmul(1, 4096, 4096);
  p.has_m = false;
  p.m_tile_bytes = 0;
  p.m_tiles = 0;
  for (const TileChoice& c : tile_candidates(p, big_gpu(), 6)) {
    CHECK(c.ty == 1);
    CHECK(c.rm == 1);
  }
}

}  // namespace
}  // namespace plaidml::jit::gpu
