// Weight packing (jit/passes/weight_packing.h): a contraction whose column operand is a large
// constant reads it from panels (a packed slot replaces the constant's), and computes the
// interpreter's numbers at shapes with full and narrow column tiles, reduction blocks, padding
// guards and fused epilogues; what does not qualify keeps the constant as it is.
#include <cstring>
#include <regex>

#include "core/ir/constant.h"
#include "jit/codegen/harness.h"
#include "jit/loop/printer.h"
#include "jit/lower/panel_packing.h"

namespace plaidml::jit::testing {
namespace {

// The program `text` whose constants (named by any digest) hold values in [0, 1) from `seed`.
ir::BoundProgram bind_with_constants(const std::string& text, const std::vector<Shape>& shapes,
                                     uint64_t seed) {
  auto resolver = [&](const Shape& shape, uint64_t) {
    HostTensor t = plaidml::testing::random_tensor(shape, seed++, {0.0, 1.0});
    return ir::copy_constant(shape, t.bytes.data());
  };
  auto program = parse::parse_tile(text, "packing", resolver);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  return std::move(*bound);
}

int packed_slots(const LoweredProgram& p) {
  int n = 0;
  for (const BufferSlot& s : p.slots) n += s.packing.packed() ? 1 : 0;
  return n;
}

int constant_slots(const LoweredProgram& p) {
  int n = 0;
  for (const BufferSlot& s : p.slots) n += s.role == BufferSlot::Role::kConstant ? 1 : 0;
  return n;
}

// The epilogues subtract most of the sum (so that relu clips about half): the f32 rounding of
// a sum of 576 terms near 150 is then an absolute error, bounded by 576 * 2^-24 * 150 = 5e-3 in
// another order (a few 1e-4 seen). A misplaced weight is off by a whole term (0.25 on average).
void check_numbers(const ir::BoundProgram& bound, const std::vector<HostTensor>& inputs,
                   const passes::CpuTarget& cpu) {
  constexpr plaidml::testing::Tolerance kSumOf150{1e-5, 2e-3};
  check_bound_against_interpreter(bound, inputs, cpu, "packing", kSumOf150);
}

const char* kDenseBiasRelu =
    "function (A[M, K]) -> (O) {\n"
    "  W = constant(f32[{K}, {N}], digest \"0000000000000000\");\n"
    "  B = constant(f32[{N}], digest \"0000000000000001\");\n"
    "  C[i, j : M, {N}] = +(A[i, k] * W[k, j]);\n"
    "  O = relu(C + B - 100);\n"
    "}";

std::string dense_text(int64_t k, int64_t n) {
  std::string t = kDenseBiasRelu;
  for (auto [key, value] : {std::pair{"{K}", k}, std::pair{"{N}", n}}) {
    for (size_t at; (at = t.find(key)) != std::string::npos;) t.replace(at, 3, std::to_string(value));
  }
  return t;
}

TEST_CASE("weight packing: a dense layer with wide constant weights reads them from panels") {
  // 1024 columns: 42 full tiles of 24 and a narrow one of 16 on AVX2, the panels outermost in
  // reduction blocks of K; 64 x 256 (64 KiB, beyond half of L1 but within a quarter of L2): the
  // rows stay outermost and read the panels.
  // 2048 x 64: three column tiles, too few for two threads to own several, so the rows stay
  // outermost in GotoBLAS's cache tiles, reading the panels. 1001 and 776 columns (776 = 16 x 48
  // + 8 on AVX-512): the last panel is padded, its last columns read by a masked vector.
  for (int bits : {256, 512}) {
    for (auto [m, k, n] : {std::tuple{37, 512, 1024}, std::tuple{6, 300, 776},
                           std::tuple{50, 64, 256}, std::tuple{30, 2048, 64},
                           std::tuple{5, 512, 1001}}) {
      CAPTURE(bits);
      CAPTURE(m);
      CAPTURE(k);
      CAPTURE(n);
      passes::CpuTarget cpu = passes::cpu_target_for(bits, 2);
      ir::BoundProgram bound =
          bind_with_constants(dense_text(k, n), {Shape(DType::F32, {m, k})}, 3);
      Scheduled s = schedule(bound, cpu);
      CHECK(packed_slots(s.lowered) == 1);
      CHECK(constant_slots(s.lowered) == 2);  // the weights' slot is gone, the bias stays
      const BufferSlot* packed = nullptr;
      for (const BufferSlot& slot : s.lowered.slots) {
        if (slot.packing.packed()) packed = &slot;
      }
      REQUIRE(packed != nullptr);
      CHECK(packed->packing.rows == k);
      CHECK(packed->packing.cols == n);
      CHECK(packed->packing.source == Shape(DType::F32, {k, n}));
      CHECK(packed->shape.elements() == packed_elements(packed->packing));
      check_numbers(bound, {positive({m, k}, 5)}, cpu);
    }
  }
}

// A dense layer of M x K rows times a constant K x N, scheduled for `cpu`: its one kernel,
// which must read the weights from panels.
struct PackedDense {
  ir::BoundProgram bound;
  std::string kernel;
};
PackedDense packed_dense(int64_t m, int64_t k, int64_t n, const passes::CpuTarget& cpu) {
  PackedDense d{bind_with_constants(dense_text(k, n), {Shape(DType::F32, {m, k})}, 4), ""};
  Scheduled s = schedule(d.bound, cpu);
  REQUIRE(packed_slots(s.lowered) == 1);
  d.kernel = loop::to_string(s.lowered.kernels.at(0));
  return d;
}

TEST_CASE("weight packing: reduction blocks keep a panel in L1 unless rows and outputs leave L2") {
  // Stride-2 1x1 convs (their rows are one image row's pixels, not the kernel's outermost loop,
  // so never GotoBLAS's cache tiles) on AVX2, 1 MiB of L2, one thread; the panels outermost
  // (beyond a quarter of L2). A 20x20x640 input (1 MiB) leaves half of L2, but a column tile's
  // 10 x 10 x 16 outputs (6 KiB) are few: blocks within half of L1 (64 bytes of panel a step: at
  // most 256 steps), even ones (224 + 224 + 192, not 256 + 256 + 128). A 56x56x256 input
  // (3.1 MiB) would be read again from L3 once per block, and a column tile's 28 x 28 x 24
  // outputs (74 KiB) again from L2: a quarter of L2 holds the whole reduction (no blocks).
  const char* strided =
      "function (I[N, H, W, CI]) -> (O) {{\n"
      "  K = constant(f32[{0}, {1}], digest \"{0:016x}\");\n"
      "  O[n, y, x, co : N, H / 2, W / 2, {1}] = +(I[n, 2 * y, 2 * x, ci] * K[ci, co]);\n"
      "}}";
  passes::CpuTarget avx2 = passes::cpu_target_for(256, 1);
  avx2.l2_bytes = 1024 * 1024;
  for (auto [hw, k, n, block] : {std::tuple{56, 256, 512, 0}, std::tuple{20, 640, 256, 224}}) {
    CAPTURE(hw);
    CAPTURE(k);
    ir::BoundProgram bound = bind_with_constants(fmt::format(fmt::runtime(strided), k, n),
                                                 {Shape(DType::F32, {1, hw, hw, k})}, 6);
    Scheduled sched = schedule(bound, avx2);
    REQUIRE(packed_slots(sched.lowered) == 1);
    std::string text = loop::to_string(sched.lowered.kernels.at(0));
    CAPTURE(text);
    CHECK(text.find("parallel for co$rb") != std::string::npos);
    if (block > 0) {
      CHECK(text.find(fmt::format("$kc in [0, {}) step {} {{", k, block)) != std::string::npos);
    } else {
      CHECK(text.find("$kc in") == std::string::npos);
    }
    check_numbers(bound, {positive({1, hw, hw, k}, 6)}, avx2);
  }
}

TEST_CASE("weight packing: weights beyond half of L2 in GotoBLAS blocks, the next one prefetched") {
  // 37 x 512 times 512 x 1024 (2 MiB) and 64 x 3072 times 3072 x 256 (BERT's shape, 3 MiB) on
  // AVX2 with 1 MiB of L2: blocks of the reduction, the columns and the rows
  // (cache_tile_search.h) over the panels, and in every step one prefetch into the next
  // reduction block of the tile's panel (after the last, the next column block's first),
  // spread over the row tiles.
  passes::CpuTarget avx2 = passes::cpu_target_for(256, 2);
  for (auto [m, k, n] : {std::tuple{37, 512, 1024}, std::tuple{64, 3072, 256}}) {
    CAPTURE(m);
    CAPTURE(k);
    PackedDense d = packed_dense(m, k, n, avx2);
    const std::string& text = d.kernel;
    CAPTURE(text);
    // More blocks than the two threads: one run of consecutive blocks a thread.
    CHECK(text.find("parallel for i$mc$blk$run in [0, 2) {") != std::string::npos);
    CHECK(text.find("for i$mc$blk in [((i$mc$blk$run * ") != std::string::npos);
    CHECK(text.find("for k$kc in [0, ") != std::string::npos);
    CHECK(text.find("for j$rb in [j$nc, min((j$nc + ") != std::string::npos);
    CHECK(text.find("prefetch s") != std::string::npos);
    CHECK(text.find("(k - k$kc)") != std::string::npos);  // the step within the block
    // After the last reduction block (k$kc + KC reaching K): the panel of the tile NC columns
    // on, in the next column block, at its first row.
    CHECK(std::regex_search(text, std::regex(fmt::format(R"(\(\(k\$kc \+ \d+\) / {}\))", k))));
    CHECK(std::regex_search(text, std::regex(fmt::format(R"(\(\(j\$rb \+ \d+\) \* {}\))", k))));
    check_numbers(d.bound, {positive({m, k}, 6)}, avx2);
  }
}

TEST_CASE("weight packing: a 3x3 conv's 64-wide panels in blocks of 8 channels, prefetched") {
  // A channel step of a 64-column tile reads 9 taps x 64 floats (2304 bytes): half of a 48 KiB
  // L1 holds 10 of them, fewer than the usual unit of 16, so the blocks are of 8 channels (the
  // light ResNet-50's 7x7x512 3x3 convs ran without blocks, reading their 1.2 MB panels from L2
  // for every row tile: 2.2 -> 1.8 ms each in the model on a Xeon core).
  const char* text =
      "function (I[N, H, W, CI]) -> (O) {\n"
      "  K = constant(f32[3, 3, 64, 256], digest \"0000000000000002\");\n"
      "  C[n, y, x, co : N, H, W, 256] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
      "  O = relu(C);\n"
      "}";
  ir::BoundProgram bound = bind_with_constants(text, {Shape(DType::F32, {1, 7, 7, 64})}, 12);
  passes::CpuTarget cpu = passes::cpu_target_for(512, 1);
  cpu.l1_bytes = 48 * 1024;
  Scheduled s = schedule(bound, cpu);
  CHECK(packed_slots(s.lowered) == 1);
  std::string kernel = loop::to_string(s.lowered.kernels.at(0));
  CAPTURE(kernel);
  CHECK(kernel.find("$kc in [0, 64) step 8 {") != std::string::npos);
  // Each step prefetches the same step of the next block (ci + 8), one line of 16 floats; which
  // of the tile's four lines turns with the row tile (its image row y, plus its place in the
  // row), so that the tiles together fetch every line. The last block's point past the panel
  // (prefetches never fault).
  CHECK(kernel.find("prefetch s2[(((((co$rb * 576) + ((ci + 8) * 64)) + (i * 12288)) + "
                    "(j * 4096)) + ((y % 4) * 16))]") != std::string::npos);
  CHECK(kernel.find("(((1 + y) % 4) * 16))]") != std::string::npos);
  CHECK(kernel.find("+ 48) + ((ci + 8) * 64))") == std::string::npos);
  check_numbers(bound, {positive({1, 7, 7, 64}, 3)}, cpu);
}

TEST_CASE("weight packing: two threads, two column tiles: the panels outermost, rows in groups") {
  // A 3x3 conv of 64 -> 128 channels (a 288 KiB panel, beyond a quarter of a 1 MiB L2) in two
  // 64-column tiles on AVX-512. On two threads its image rows would split between the threads,
  // each reading the whole panel; the tiles go outermost instead, each tile's rows in groups
  // (ResNet-50's 28x28 3x3 convs of 128 channels). On one thread the rows stay outermost.
  const char* text =
      "function (I[N, H, W, CI]) -> (O) {\n"
      "  K = constant(f32[3, 3, 64, 128], digest \"0000000000000003\");\n"
      "  C[n, y, x, co : N, H, W, 128] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
      "  O = relu(C);\n"
      "}";
  ir::BoundProgram bound = bind_with_constants(text, {Shape(DType::F32, {1, 8, 8, 64})}, 13);
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    passes::CpuTarget cpu = passes::cpu_target_for(512, threads);
    cpu.l1_bytes = 48 * 1024;
    cpu.l2_bytes = 1024 * 1024;
    Scheduled s = schedule(bound, cpu);
    std::string kernel = loop::to_string(s.lowered.kernels.at(0));
    CAPTURE(kernel);
    bool grouped = kernel.find("parallel for co$rb$grp in [0, 8)") != std::string::npos;
    CHECK(grouped == (threads == 2));
    CHECK((kernel.find("parallel for y in [0, 8)") != std::string::npos) == (threads == 1));
    check_numbers(bound, {positive({1, 8, 8, 64}, 4)}, cpu);
  }
}

TEST_CASE("weight packing: a padded 3x3 conv whose weights are a constant, with bias and relu") {
  // 7x7 image (every row a border or interior piece of the jigsaw), 200 output channels (a
  // narrow last tile), KH*KW*CI = 576 rows in reduction blocks of the input channels.
  const char* text =
      "function (I[N, H, W, CI]) -> (O) {\n"
      "  K = constant(f32[3, 3, 64, 200], digest \"0000000000000000\");\n"
      "  B = constant(f32[200], digest \"0000000000000001\");\n"
      "  C[n, y, x, co : N, H, W, 200] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
      "  O = relu(C + B - 150);\n"
      "}";
  ir::BoundProgram bound = bind_with_constants(text, {Shape(DType::F32, {1, 7, 7, 64})}, 11);
  for (int bits : {256, 512}) {  // 200 = 16 x 12 + 8: a masked last vector on AVX-512
    CAPTURE(bits);
    passes::CpuTarget cpu = passes::cpu_target_for(bits, 2);
    Scheduled s = schedule(bound, cpu);
    CHECK(packed_slots(s.lowered) == 1);
    check_numbers(bound, {positive({1, 7, 7, 64}, 2)}, cpu);
    cpu.threads = 1;  // one column-tile loop for a thread: the same numbers
    check_numbers(bound, {positive({1, 7, 7, 64}, 2)}, cpu);
  }
}

TEST_CASE("weight packing: weights that stay in cache and inputs are read as they are") {
  // Small: the panel of 16 x 128 floats stays in half of L1 however strided.
  ir::BoundProgram small = bind_with_constants(dense_text(16, 128), {Shape(DType::F32, {9, 16})}, 1);
  CHECK(packed_slots(schedule(small, host_cpu()).lowered) == 0);
  // Weights given as an input change every run: nothing to pack once.
  ir::BoundProgram input = bind_tile(
      "function (A[M, K], W[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * W[k, j]); }",
      {Shape(DType::F32, {8, 512}), Shape(DType::F32, {512, 1024})});
  CHECK(packed_slots(schedule(input, host_cpu()).lowered) == 0);
  // A GPU target (no vector unit): no CPU schedule, nothing packed.
  passes::CpuTarget gpu;
  CHECK(packed_slots(schedule(bind_with_constants(dense_text(512, 1024),
                                                  {Shape(DType::F32, {8, 512})}, 1),
                              gpu)
                         .lowered) == 0);
}

TEST_CASE("panel packing: panels of rows x width, the last one padded with zeros") {
  // 2 rows of 5 columns in panels of 2: [0 1 | 5 6], [2 3 | 7 8], [4 0 | 9 0].
  const float source[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  PanelPacking p{2, 5, 2, Shape(DType::F32, {2, 5})};
  CHECK(packed_elements(p) == 12);
  std::vector<uint8_t> bytes = pack_panels(source, 4, p);
  REQUIRE(bytes.size() == 48);
  std::vector<float> got(12);
  std::memcpy(got.data(), bytes.data(), bytes.size());
  CHECK(got == std::vector<float>{0, 1, 5, 6, 2, 3, 7, 8, 4, 0, 9, 0});
}

}  // namespace
}  // namespace plaidml::jit::testing
