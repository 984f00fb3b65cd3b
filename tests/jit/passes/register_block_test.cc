// The register-block pass (jit/passes/register_block.h): which kernels it rewrites and how, and
// the numbers of the rewritten kernels against the reference interpreter at shapes that
// straddle the register tile's rows and the vector width (full tiles, narrow tiles, masked
// columns), with padding guards at the borders and fused epilogues.
#include "jit/passes/register_block.h"

#include "jit/codegen/harness.h"
#include "jit/loop/printer.h"
#include "jit/passes/cache_tile_search.h"
#include "jit/passes/guard_ranges.h"
#include "jit/passes/register_tile_search.h"

namespace plaidml::jit::testing {
namespace {

const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
const char* kConvBiasRelu =
    "function (I[N, H, W, CI], K[KH, KW, CI, CO], B[CO]) -> (O) {\n"
    "  C[n, y, x, co : N, H, W, CO] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
    "  O = relu(C + B);\n"
    "}";

// A target whose L2 holds only 16 KiB, so that small matmuls get cache tiles.
passes::CpuTarget tiny_l2() {
  passes::CpuTarget t = host_cpu();
  t.l2_bytes = 16 * 1024;
  return t;
}

// An AVX-512 target (16 lanes, 32 registers) whatever the host has, for tests that expect that
// schedule's text: machines of one kind differ (an AVX2-only EPYC gets 8 lanes and 16
// registers). The kernels still run on the host: LLVM splits vectors wider than its own.
passes::CpuTarget avx512_with_l2(int64_t l2_bytes) {
  passes::CpuTarget t = passes::cpu_target_for(512, 2);
  t.l2_bytes = l2_bytes;
  return t;
}

std::string scheduled(const std::string& text, const std::vector<Shape>& shapes, int vector_bits,
                      std::optional<passes::CpuTarget> target = std::nullopt) {
  return schedule(bind_tile(text, shapes), target.value_or(passes::cpu_target_for(vector_bits, 1)))
      .text;
}

TEST_CASE("register tile search: within the register budget, narrower for short rows") {
  passes::CpuTarget avx512 = passes::cpu_target_for(512, 1);
  passes::RegisterTile t = passes::search_register_tile(1024, 1024, 32, avx512);
  CHECK(t.lanes == 16);
  CHECK(t.rows * t.vectors + t.vectors + 1 <= 32);
  CHECK(t.rows * t.vectors >= 20);  // enough accumulators to hide the FMA latency
  passes::RegisterTile avx2 =
      passes::search_register_tile(1024, 1024, 32, passes::cpu_target_for(256, 1));
  CHECK(avx2.lanes == 8);
  CHECK(avx2.rows * avx2.vectors + avx2.vectors + 1 <= 16);
  CHECK(passes::search_register_tile(3, 64, 32, avx512).rows <= 3);
  CHECK(passes::search_register_tile(100, 8, 32, avx512).lanes == 0);   // shorter than a vector
  CHECK(passes::search_register_tile(100, 64, 64, avx512).lanes == 8);  // f64
}

TEST_CASE("matmul becomes vector accumulators, and stays scalar without a vector unit") {
  std::vector<Shape> shapes = {Shape(DType::F32, {13, 7}), Shape(DType::F32, {7, 37})};
  std::string text = scheduled(kMatmul, shapes, 512);
  CHECK(text.find("var $acc0_0: f32x16 = splat16(0:f32)") != std::string::npos);
  // B's row is loaded as vectors, A's element broadcast (one tile of 13 rows and 32 columns: i$rb
  // and j$rb are 0).
  CHECK(text.find("s1[((k * 37) + 16)]:f32x16") != std::string::npos);
  CHECK(text.find("splat16(s0[k]:f32) * s1[((k * 37) + 16)]:f32x16") != std::string::npos);
  // The last 5 columns: one vector tile whose loads and stores are masked to 5 lanes.
  CHECK(text.find("s1[((k * 37) + 32)]:f32x16/5") != std::string::npos);
  CHECK(text.find("s2[69]/5 = $acc1_0") != std::string::npos);  // row 1, columns 32 to 36
  std::string plain = scheduled(kMatmul, shapes, 0);
  CHECK(plain.find("x16") == std::string::npos);
  CHECK(plain.find("$acc") == std::string::npos);
}

TEST_CASE("padding guards: none in the jigsaw's interior, per row at the borders") {
  std::string text = scheduled(
      kConvBiasRelu,
      {Shape(DType::F32, {1, 9, 20, 8}), Shape(DType::F32, {3, 3, 8, 16}), Shape(DType::F32, {16})},
      512);
  // Output columns 1..18 read no padding whatever the kernel offset: no guard on x there.
  size_t interior = text.find("independent for x$rb in [1, 19) step");
  REQUIRE(interior != std::string::npos);
  size_t next_guard = text.find("<= 20)", interior);
  size_t border = text.find("if (((j + 19) >= 1) & ((j + 19) <= 20))");
  CHECK(border != std::string::npos);
  CHECK(next_guard > border);  // the first guard on x after the interior is the last column's
  CHECK(text.find("if ((j >= 1) & (j <= 20))") != std::string::npos);  // column 0
  // The fused epilogue is applied to the accumulators before the one store.
  CHECK(text.find("relu(($acc0_0 + s2[0]:f32x16))") != std::string::npos);
}

TEST_CASE("padding guards on the parallel loop: one test per tile, per row when it fails") {
  // The rows are the parallel loop, which stays whole (no jigsaw).
  const char* conv1d =
      "function (I[W, CI], K[KW, CI, CO]) -> (O) {\n"
      "  O[x, co : W, CO] = +(I[x + k - 1, ci] * K[k, ci, co]);\n}";
  std::string text =
      scheduled(conv1d, {Shape(DType::F32, {30, 4}), Shape(DType::F32, {3, 4, 32})}, 512);
  CHECK(text.find("== 0:bool)") != std::string::npos);  // the per-row path
  for (int64_t w : {1, 6, 30}) {
    check_against_interpreter(
        conv1d, {random(DType::F32, {w, 4}, 19 + w), random(DType::F32, {3, 4, 32}, 20)});
  }
}

TEST_CASE("a full tile's reduction loop is unrolled four times by LLVM, edge tiles' are not") {
  // AVX-512: 13 rows in tiles of 6 leave an edge tile of one row; 40 columns leave a masked one.
  std::vector<Shape> shapes = {Shape(DType::F32, {13, 37}), Shape(DType::F32, {37, 40})};
  std::string text = scheduled(kMatmul, shapes, 512);
  INFO(text);
  CHECK(text.find("for k in [0, 37) unroll 4 {") != std::string::npos);
  CHECK(text.find("for k in [0, 37) {") != std::string::npos);  // the edge tiles
  // A 3x3 conv's loops over the filter (three trips) are not unrolled, its channels are.
  std::string conv = scheduled(kConvBiasRelu, {Shape(DType::F32, {1, 8, 8, 16}),
                                               Shape(DType::F32, {3, 3, 16, 64}),
                                               Shape(DType::F32, {64})}, 512);
  INFO(conv);
  CHECK(conv.find("for ci in [0, 16) unroll 4 {") != std::string::npos);
  CHECK(conv.find("in [0, 3) unroll") == std::string::npos);
  // Reductions of fewer trips than copies, and remainders of every size, on this host.
  for (int64_t k : {1, 3, 4, 5, 6, 7, 37}) {
    check_against_interpreter(
        kMatmul, {random(DType::F32, {13, k}, 60 + k), random(DType::F32, {k, 40}, 61 + k)});
  }
}

TEST_CASE("an epilogue's residual is prefetched before the reduction, a line per vector") {
  // relu(x W + b) + r on AVX-512: r's lines for the tile's rows and vectors are fetched into L2
  // while the reduction runs (in a model r comes from memory); b, one row for all, is not.
  const char* residual =
      "function (A[M, K], W[K, N], B[N], R[M, N]) -> (O) {\n"
      "  C[i, j : M, N] = +(A[i, k] * W[k, j]);\n"
      "  O = relu(C + B) + R;\n"
      "}";
  std::vector<Shape> shapes = {Shape(DType::F32, {40, 64}), Shape(DType::F32, {64, 32}),
                               Shape(DType::F32, {32}), Shape(DType::F32, {40, 32})};
  std::string text = scheduled(residual, shapes, 512);
  INFO(text);
  size_t first = text.find("prefetch s3[");
  REQUIRE(first != std::string::npos);
  CHECK(first < text.find("for k in"));
  CHECK(text.find("prefetch s3[(((i$rb + 1) * 32) + 16)]") != std::string::npos);
  CHECK(text.find("prefetch s2[") == std::string::npos);
  check_against_interpreter(residual, {random(DType::F32, {40, 64}, 70),
                                       random(DType::F32, {64, 32}, 71),
                                       random(DType::F32, {32}, 72),
                                       random(DType::F32, {40, 32}, 73)});
}

TEST_CASE("register-blocked kernels match the interpreter at tile and vector edges") {
  for (int64_t m : {1, 5, 6, 13, 31}) {
    for (int64_t n : {15, 16, 17, 48, 80, 97}) {
      check_against_interpreter(
          kMatmul, {random(DType::F32, {m, 9}, 1 + m * n), random(DType::F32, {9, n}, 2 + n)});
    }
  }
  check_against_interpreter(kMatmul,
                            {random(DType::F64, {7, 5}, 3), random(DType::F64, {5, 19}, 4)});
  for (int64_t w : {1, 2, 7, 20}) {
    check_against_interpreter(kConvBiasRelu,
                              {random(DType::F32, {2, 5, w, 8}, 5 + w),
                               random(DType::F32, {3, 3, 8, 33}, 6), random(DType::F32, {33}, 7)});
  }
}

TEST_CASE("a single row (a vector times a matrix) is register-blocked too") {
  // M = 1 leaves no row loop: the lowering loops over the columns, in parallel blocks of 256
  // (j$blk) when there are more. Both become one row of register tiles.
  const char* gemv_bias =
      "function (A[M, K], B[K, N], C[N]) -> (O) {\n"
      "  O[i, j : M, N] = +(A[i, k] * B[k, j]) default C;\n}";
  for (int64_t n : {40, 256, 1000}) {
    CAPTURE(n);
    std::vector<Shape> shapes = {Shape(DType::F32, {1, 300}), Shape(DType::F32, {300, n}),
                                 Shape(DType::F32, {n})};
    std::string text = scheduled(gemv_bias, shapes, 256);
    CHECK(text.find("var $acc0_0: f32x8") != std::string::npos);
    CHECK(text.find("$blk") == std::string::npos);
    check_against_interpreter(gemv_bias, {positive({1, 300}, 8 + uint64_t(n)),
                                          positive({300, n}, 9), positive({n}, 10)});
  }
}

TEST_CASE("a single row on many threads splits its columns across them") {
  // AVX-512 with 16 threads: one row of 8-vector tiles leaves 24 column tiles of 128 for a
  // 768 x 3072 weight, which the threads share (the parallel loop is the column tiles').
  const char* gemv =
      "function (A[M, K], B[K, N]) -> (O) { O[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  passes::CpuTarget many = passes::cpu_target_for(512, 16);
  std::string text =
      scheduled(gemv, {Shape(DType::F32, {1, 768}), Shape(DType::F32, {768, 3072})}, 512, many);
  CHECK(text.find("parallel for j$rb in [0, 3072)") != std::string::npos);
  check_against_interpreter(gemv, {positive({1, 768}, 21), positive({768, 3072}, 22)}, many);
}

TEST_CASE("small edge tiles split their reduction over several accumulator sets") {
  // AVX2 (16 registers): a 7-wide conv leaves one-column tiles at the padding, whose two
  // accumulators alone would wait on each FMA. Their channel loop runs four ways unrolled into
  // four sets, summed before the store; the 9 channels leave one iteration for set 0.
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 7, 7, 9}), Shape(DType::F32, {3, 3, 9, 16}),
                               Shape(DType::F32, {16})};
  std::string text = scheduled(kConvBiasRelu, shapes, 256);
  INFO(text);
  CHECK(text.find("var $acc0_1s3: f32x8 = splat8(0:f32)") != std::string::npos);
  CHECK(text.find("for ci in [0, 8) step 4") != std::string::npos);
  CHECK(text.find("$acc0_1s3 = ($acc0_1s3 + ") != std::string::npos);
  CHECK(text.find("$acc0_0 = ($acc0_0 + $acc0_0s1)") != std::string::npos);
  for (int64_t ci : {1, 4, 9}) {
    check_against_interpreter(kConvBiasRelu, {positive({1, 7, 7, ci}, 40 + ci),
                                              positive({3, 3, ci, 16}, 41), positive({16}, 42)});
  }
}

TEST_CASE("equal columns sum equally: the narrow and masked edge tiles round as full tiles do") {
  // B's columns are all equal and A's signs mixed, so every output of a row is one sum of K
  // rounded products: whatever order and rounding the full tiles use, the edge tiles (fewer
  // vectors, fewer columns than a vector) must use too. A softmax over a constant-weight
  // classifier's 1000 outputs turned 1/1000 into 0 where its last 8 columns (AVX-512) summed as
  // scalars without FMAs, or its narrow tile in four accumulator sets.
  using plaidml::testing::read_element;
  using plaidml::testing::write_element;
  for (int bits : {256, 512}) {
    for (int64_t n : {149, 1001}) {  // 16 x 9 + 5 or 8 x 18 + 5; 16 x 62 + 9 or 8 x 125 + 1
      CAPTURE(bits);
      CAPTURE(n);
      const int64_t k = 700;
      HostTensor a = random(DType::F32, {3, k}, 70 + uint64_t(n));
      HostTensor column = random(DType::F32, {k}, 71);
      HostTensor b(Shape(DType::F32, {k, n}));
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t c = 0; c < n; ++c) write_element(b, r * n + c, read_element(column, r).f);
      }
      passes::CpuTarget target = passes::cpu_target_for(bits, 1);
      auto out = check_against_interpreter(kMatmul, {a, b}, target);
      for (int64_t i = 0; i < 3; ++i) {
        for (int64_t c = 1; c < n; ++c) {
          CAPTURE(c);
          REQUIRE(read_element(out[0], i * n + c).f == read_element(out[0], i * n).f);
        }
      }
    }
  }
}

TEST_CASE("cache tiles: blocks of the reduction, the columns and the rows, searched in L1 and L2") {
  passes::CpuTarget cpu = passes::cpu_target_for(512, 2);
  cpu.l1_bytes = 48 * 1024;
  cpu.l2_bytes = 2 * 1024 * 1024;
  passes::CacheTile fits = passes::search_cache_tile(256, 256, 256, 4, 9, 48, cpu);
  CHECK(fits.kc == 0);  // 256 KiB of B stays in L2, read by both threads
  // 512 x 256 (512 KiB): on one thread the panel stays in a quarter of L2; two threads would
  // each read all of it without cache tiles. ResNet-50's 14x14 1x1 convs, 1024 x 256 (1 MiB),
  // get them on one thread too.
  CHECK(passes::search_cache_tile(196, 512, 256, 4, 9, 48, cpu).kc > 0);
  passes::CpuTarget one_thread = cpu;
  one_thread.threads = 1;
  CHECK(passes::search_cache_tile(196, 512, 256, 4, 9, 48, one_thread).kc == 0);
  CHECK(passes::search_cache_tile(196, 1024, 256, 4, 9, 48, one_thread).kc > 0);
  // BERT's 128 tokens times a 3072 x 768 weight, tiles of 9 rows x 48 columns: KC = 320 (9 rows
  // of 341 floats fill a quarter of L1; 3072 in 10 equal blocks of 16s), NC = 192 (a 320 x 204
  // block of B fills an eighth of L2; 768 in 4 equal blocks), all 128 rows (a 128 x 192 C block
  // in a quarter of L2): four blocks, two for each thread.
  passes::CacheTile bert = passes::search_cache_tile(128, 3072, 768, 4, 9, 48, cpu);
  CHECK(bert.kc == 320);
  CHECK(bert.nc == 192);
  CHECK(bert.mc == 128);
  // 768 x 3072: 3 blocks of 256 channels, NC = 240 (13 blocks: 7 + 6 on two threads, within 8 %
  // of even).
  passes::CacheTile wide = passes::search_cache_tile(128, 768, 3072, 4, 9, 48, cpu);
  CHECK(wide.kc == 256);
  CHECK(wide.nc == 240);
  // 576 columns: three blocks of 192 would not split evenly over two threads; four of 144 do.
  passes::CacheTile odd = passes::search_cache_tile(128, 3072, 576, 4, 9, 48, cpu);
  CHECK(odd.nc == 144);
  // 2048 columns of 512 channels: 9 blocks of 240 would run 5 + 4, 11 of 192 6 + 5; 15 of 144
  // run 8 + 7.
  CHECK(passes::search_cache_tile(49, 512, 2048, 4, 9, 48, cpu).nc == 144);
  cpu.threads = 1;
  CHECK(passes::search_cache_tile(128, 3072, 576, 4, 9, 48, cpu).nc == 192);
  CHECK(passes::search_cache_tile(49, 512, 2048, 4, 9, 48, cpu).nc == 240);
  // Few columns and many threads: the rows split too, in multiples of the tile's.
  cpu.threads = 8;
  passes::CacheTile tall = passes::search_cache_tile(1000, 4096, 96, 4, 9, 48, cpu);
  CHECK(tall.nc == 48);
  CHECK(tall.mc % 9 == 0);
  CHECK((1000 + tall.mc - 1) / tall.mc * 2 >= 8);

  // On AVX-512 with a 16 KiB L2: tiles of 8 rows x 48 columns, KC = 256 (8 rows of 256 floats
  // in a quarter of 32 KiB; 1000 in 4 equal blocks), one tile a column block, rows in blocks.
  passes::CpuTarget small = avx512_with_l2(16 * 1024);
  std::string text = scheduled(
      kMatmul, {Shape(DType::F32, {40, 1000}), Shape(DType::F32, {1000, 70})}, 512, small);
  CAPTURE(text);
  CHECK(text.find("for k$kc in [0, 1000) step 256 {") != std::string::npos);
  // More blocks than the two threads: one run of consecutive blocks a thread.
  CHECK(text.find("parallel for i$mc$blk$run in [0, 2) {") != std::string::npos);
  CHECK(text.find("for i$mc$blk in [((i$mc$blk$run * ") != std::string::npos);
  CHECK(text.find("for j$rb in [j$nc, min((j$nc + ") != std::string::npos);
}

TEST_CASE("cache tiles only where the rows are the kernel's outermost loop, and several tiles") {
  // A strided 1x1 conv's rows are one image row's pixels, inside the loop over image rows: its
  // cache tiles would stream every weight block once per image row. The column tiles stay
  // outermost instead, reading each tile's weights once.
  const char* strided =
      "function (I[N, H, W, CI], K[CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, H / 2, W / 2, CO] = +(I[n, 2 * y, 2 * x, ci] * K[ci, co]);\n}";
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 14, 14, 256}),
                               Shape(DType::F32, {256, 512})};
  std::string text = scheduled(strided, shapes, 512, avx512_with_l2(256 * 1024));
  CAPTURE(text);
  CHECK(text.find("$mc") == std::string::npos);
  CHECK(text.find("parallel for co$rb") != std::string::npos);
  // A matmul of 9 rows, one row tile: no blocks either (one thread: with two, too few rows for
  // the threads would put the column tiles outermost anyway).
  passes::CpuTarget one_thread = avx512_with_l2(256 * 1024);
  one_thread.threads = 1;
  std::string one = scheduled(
      kMatmul, {Shape(DType::F32, {9, 1024}), Shape(DType::F32, {1024, 512})}, 512, one_thread);
  CHECK(one.find("$mc") == std::string::npos);
}

TEST_CASE("cache-tiled kernels match the interpreter, with a fused epilogue and ragged blocks") {
  // 300 = 160 + 140 reduction steps (tiles of 8 rows); 41 rows in blocks with a partial tile;
  // 70 columns: column blocks of one tile, the narrow and masked edge in the last block.
  // Positive values: sums without cancellation, whose rounding the other order keeps within
  // the tolerance (a misplaced or missed term is off by a whole product).
  for (int64_t k : {17, 100, 300}) {
    check_against_interpreter(kMatmul, {positive({41, k}, 11 + uint64_t(k)), positive({k, 70}, 12)},
                              tiny_l2());
  }
  check_against_interpreter(
      "function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
      "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n  R = relu(C + Bias);\n}",
      {random(DType::F32, {23, 90}, 13), random(DType::F32, {90, 50}, 14),
       random(DType::F32, {50}, 15)},
      tiny_l2());
}

TEST_CASE("jigsaw: the rows where every padding guard holds for all reduction values") {
  using ir::OpKind;
  using loop::int_const;
  using loop::op;
  using loop::var;
  auto x_plus_j = loop::idx_add(var("j"), var("x"));
  // 1 <= x + j <= 20 for j in [0, 2]: x in [1, 18], i.e. [1, 19) of [0, 20).
  loop::ExprPtr pad = op(OpKind::BitAnd, DType::Bool,
                         {op(OpKind::Ge, DType::Bool, {x_plus_j, int_const(1)}),
                          op(OpKind::Le, DType::Bool, {x_plus_j, int_const(20)})});
  auto r = passes::unguarded_range({pad}, "x", 0, 20, {{"j", {0, 2}}});
  REQUIRE(r.has_value());
  CHECK(*r == std::pair<int64_t, int64_t>(1, 19));
  // A stride of 2 and a strict bound: 0 <= 2x + j - 3 < 9 for j in [0, 6] -> x in [2, 3).
  auto strided = loop::idx_add(loop::idx_mul(var("x"), 2), loop::idx_add(var("j"), int_const(-3)));
  loop::ExprPtr s2 = op(OpKind::BitAnd, DType::Bool,
                        {op(OpKind::Ge, DType::Bool, {strided, int_const(0)}),
                         op(OpKind::Lt, DType::Bool, {strided, int_const(9)})});
  CHECK(*passes::unguarded_range({s2}, "x", 0, 5, {{"j", {0, 6}}}) ==
        std::pair<int64_t, int64_t>(2, 3));
  // No interior: an empty range; a variable without a range or a non-affine guard: unknown.
  CHECK(passes::unguarded_range({pad}, "x", 0, 20, {{"j", {0, 30}}})->first ==
        passes::unguarded_range({pad}, "x", 0, 20, {{"j", {0, 30}}})->second);
  CHECK(!passes::unguarded_range({pad}, "x", 0, 20, {}).has_value());
  loop::ExprPtr modular = op(OpKind::Eq, DType::Bool,
                             {op(OpKind::Mod, DType::I64, {var("x"), int_const(2)}), int_const(0)});
  CHECK(!passes::unguarded_range({modular}, "x", 0, 20, {}).has_value());
}

TEST_CASE("deep conv layers: column tiles outermost, the weights' slice per tile in L2") {
  passes::CpuTarget cpu = avx512_with_l2(16 * 1024);
  cpu.threads = 1;
  std::string text = scheduled(kConvBiasRelu,
                               {Shape(DType::F32, {1, 6, 7, 32}),
                                Shape(DType::F32, {3, 3, 32, 128}), Shape(DType::F32, {128})},
                               512, cpu);
  CHECK(text.find("parallel for co$rb in [0, 128) step 64") != std::string::npos);
  CHECK(text.find("independent for y in [0, 6)") != std::string::npos);
  for (int64_t co : {128, 140}) {
    check_against_interpreter(
        kConvBiasRelu,
        {positive({1, 6, 7, 32}, 16), positive({3, 3, 32, co}, 17), random(DType::F32, {co}, 18)},
        cpu);
  }
}

TEST_CASE("column tiles outermost, fewer than four a thread: their rows split into groups") {
  // 2 column tiles of 64 for 2 threads: each tile's 6 image rows in 3 groups of 2, the parallel
  // loop over the 6 (tile, group) pairs (a 256-channel 3x3 conv of the light ResNet-50, 4 tiles,
  // on 2 threads in the model: 0.87 -> 0.68 ms).
  passes::CpuTarget cpu = avx512_with_l2(16 * 1024);
  std::string text = scheduled(kConvBiasRelu,
                               {Shape(DType::F32, {1, 6, 7, 32}),
                                Shape(DType::F32, {3, 3, 32, 128}), Shape(DType::F32, {128})},
                               512, cpu);
  INFO(text);
  CHECK(text.find("parallel for co$rb$grp in [0, 6)") != std::string::npos);
  CHECK(text.find("for co$rb in [((co$rb$grp / 3) * 64), (((co$rb$grp / 3) * 64) + 1)) step 64") !=
        std::string::npos);
  CHECK(text.find("independent for y in [(((co$rb$grp % 3) * 6) / 3), min(((((co$rb$grp % 3) + 1) "
                  "* 6) / 3), 6))") != std::string::npos);
  for (int64_t co : {128, 140}) {  // 140: a third, masked tile
    check_against_interpreter(
        kConvBiasRelu,
        {positive({1, 6, 7, 32}, 26), positive({3, 3, 32, co}, 27), random(DType::F32, {co}, 28)},
        cpu);
  }
}

TEST_CASE("few rows, wide weights, many threads: the column tiles are the parallel loop") {
  // BERT's 128 tokens times a 768 x 3072 weight (9 MiB, beyond L2) on 16 threads.
  std::vector<Shape> shapes = {Shape(DType::F32, {128, 768}), Shape(DType::F32, {768, 3072})};
  passes::CpuTarget many = passes::cpu_target_for(512, 16);
  std::string text = scheduled(kMatmul, shapes, 512, many);
  CHECK(text.find("parallel for j$rb in [0, 3072) step") != std::string::npos);
  // One thread keeps the rows (and cache tiles) outermost, and so do as many rows as columns.
  std::string one = scheduled(kMatmul, shapes, 512, passes::cpu_target_for(512, 1));
  CHECK(one.find("parallel for j$rb") == std::string::npos);
  std::string square = scheduled(
      kMatmul, {Shape(DType::F32, {3072, 768}), Shape(DType::F32, {768, 3072})}, 512, many);
  CHECK(square.find("parallel for j$rb") == std::string::npos);
  passes::CpuTarget host_many = host_cpu();
  host_many.threads = 16;
  host_many.l2_bytes = 16 * 1024;  // so that a small weight counts as wide
  for (int64_t n : {1024, 1030}) {
    check_against_interpreter(kMatmul, {positive({9, 40}, 60), positive({40, n}, 61)}, host_many);
  }
}

TEST_CASE("deep conv layers: input channels in blocks inside each column tile") {
  // Weights of 288 KiB > L2 / 2: blocks of 16 of the 64 channels.
  passes::CpuTarget cpu = avx512_with_l2(320 * 1024);
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 6, 7, 64}), Shape(DType::F32, {3, 3, 64, 128}),
                               Shape(DType::F32, {128})};
  std::string text = scheduled(kConvBiasRelu, shapes, 512, cpu);
  CHECK(text.find("for ci$kc in [0, 64) step 16") != std::string::npos);
  CHECK(text.find("for ci in [ci$kc, min((ci$kc + 16), 64))") != std::string::npos);
  check_against_interpreter(
      kConvBiasRelu,
      {positive({1, 6, 7, 64}, 21), positive({3, 3, 64, 128}, 22), random(DType::F32, {128}, 23)},
      cpu);
}

TEST_CASE("max pooling and strided sums are blocked, integer rows are left alone") {
  check_against_interpreter(
      "function (I[N, H, W, C]) -> (O) { O[n, y, x, c : N, H / 2, W / 2, C] = "
      ">(I[n, 2 * y + i, 2 * x + j, c]), i < 2, j < 2; }",
      {random(DType::F32, {1, 8, 14, 40}, 8)});
  std::string ints =
      scheduled(kMatmul, {Shape(DType::I32, {8, 8}), Shape(DType::I32, {8, 64})}, 512);
  CHECK(ints.find("$acc") == std::string::npos);
  check_against_interpreter(kMatmul,
                            {random(DType::I32, {8, 8}, 9), random(DType::I32, {8, 64}, 10)});
}

}  // namespace
}  // namespace plaidml::jit::testing

namespace plaidml::jit::testing {
namespace {

// The op library's grouped conv writes output channel g * (C / groups) + o; a depthwise conv has
// one channel per group, o in [0, 1): a constant, so the channels are still the unit-stride row
// (lower_contraction.cc, simple_out_var) and the conv is register-blocked, not aggregated into
// memory one scalar at a time (MobileNetV3's depthwise and 1x1 convs ran at 1 to 5 GFLOP/s).
TEST_CASE("a depthwise conv (channels g * 1 + o) is register-blocked over its channels") {
  const char* depthwise =
      "function (I[N, H, W, C], K[KH, KW, C, M]) -> (O) {\n"
      "  O[n, y, x, g + o : N, H, W, C] = +(I[n, y + i - 1, x + j - 1, g] * K[i, j, g, o]), "
      "o < 1;\n}";
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 9, 9, 24}), Shape(DType::F32, {3, 3, 24, 1})};
  std::string text = schedule(bind_tile(depthwise, shapes), host_cpu()).text;
  CHECK(text.find("$acc0_0: f32x") != std::string::npos);  // vector accumulators
  CHECK(text.find("_init") == std::string::npos);  // no init kernel of the memory form
  check_against_interpreter(depthwise, {random(DType::F32, {1, 9, 9, 24}, 21),
                                        random(DType::F32, {3, 3, 24, 1}, 22)});
}

}  // namespace
}  // namespace plaidml::jit::testing
