// Golden text of lowered and simplified loop IR, and the buffer plan.
#include <doctest/doctest.h>

#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/loop/printer.h"
#include "jit/lower/lower.h"
#include "jit/passes/pipeline.h"
#include "lowered_text.h"

namespace plaidml::jit {
namespace {

LoweredProgram lower_tile(const std::string& text, const std::vector<Shape>& shapes) {
  auto program = parse::parse_tile(text);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  auto lowered = lower(*bound);
  REQUIRE_MESSAGE(lowered.has_value(), lowered.status().message());
  passes::PipelineOptions options;
  Status status = passes::run_pipeline(*lowered, options);
  REQUIRE_MESSAGE(status.is_ok(), status.message());
  return std::move(*lowered);
}

TEST_CASE("matmul lowers to the row form: i parallel, then k, then unit-stride j innermost") {
  LoweredProgram p = lower_tile(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
      {Shape(DType::F32, {3, 5}), Shape(DType::F32, {5, 4})});
  REQUIRE(p.slots.size() == 3);
  CHECK(p.slots[0].role == BufferSlot::Role::kInput);
  CHECK(p.slots[2].role == BufferSlot::Role::kOutput);
  CHECK(p.slots[2].shape == Shape(DType::F32, {3, 4}));
  CHECK(print(p) ==
        "kernel k0_C(reads: s0, s1, s2; writes: s2) {\n"
        "  parallel for i in [0, 3) {\n"
        "    for j in [0, 4) {\n"
        "      s2[((i * 4) + j)] = 0:f32\n"
        "    }\n"
        "    for k in [0, 5) {\n"
        "      for j in [0, 4) {\n"
        "        s2[((i * 4) + j)] = "
        "(s2[((i * 4) + j)]:f32 + (s0[((i * 5) + k)]:f32 * s1[((k * 4) + j)]:f32))\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
  CHECK(loop::parallel_extent(p.kernels[0]) == 3);
}

TEST_CASE("reductions over the contiguous dim and to scalars keep the register form") {
  LoweredProgram p = lower_tile("function (X[M, N]) -> (S) { S[i : M] = +(X[i, j]); }",
                                {Shape(DType::F32, {3, 5})});
  CHECK(print(p) ==
        "kernel k0_S(reads: s0; writes: s1) {\n"
        "  parallel for i in [0, 3) {\n"
        "    var $acc: f32 = 0:f32\n"
        "    for j in [0, 5) {\n"
        "      $acc = ($acc + s0[((i * 5) + j)]:f32)\n"
        "    }\n"
        "    s1[i] = $acc\n"
        "  }\n"
        "}\n");
  LoweredProgram q = lower_tile("function (X[M, N]) -> (S) { S[] = +(X[i, j]); }",
                                {Shape(DType::F32, {3, 5})});
  CHECK(print(q) ==
        "kernel k0_S(reads: s0; writes: s1) {\n"
        "  var $acc: f32 = 0:f32\n"
        "  for i in [0, 3) {\n"
        "    for j in [0, 5) {\n"
        "      $acc = ($acc + s0[((i * 5) + j)]:f32)\n"
        "    }\n"
        "  }\n"
        "  s1[0] = $acc\n"
        "}\n");
}

TEST_CASE("a kept unit axis (keepdims) keeps the register form: every output loop independent") {
  // Softmax's max over the last axis, as the ONNX importer writes it. In the memory form only
  // the head loop ran in parallel (12 GPU work-items for 1536 rows).
  LoweredProgram p = lower_tile(
      "function (X[H, M, N]) -> (S) { S[h, i, 0 : H, M, 1] = >(X[h, i, j]); }",
      {Shape(DType::F32, {2, 3, 5})});
  CHECK(print(p) ==
        "kernel k0_S(reads: s0; writes: s1) {\n"
        "  parallel for h in [0, 2) {\n"
        "    independent for i in [0, 3) {\n"
        "      var $acc: f32 = -inf:f32\n"
        "      for j in [0, 5) {\n"
        "        $acc = max($acc, s0[(((h * 15) + (i * 5)) + j)]:f32)\n"
        "      }\n"
        "      s1[((h * 3) + i)] = $acc\n"
        "    }\n"
        "  }\n"
        "}\n");
  // A constant index into a longer dim still takes the memory form (other elements are
  // initialised, not reduced).
  LoweredProgram q = lower_tile(
      "function (X[M, N]) -> (S) { S[i, 1 : M, 2] = +(X[i, j]); }", {Shape(DType::F32, {3, 5})});
  CHECK(p.kernels.size() == 1);
  CHECK(q.kernels.size() == 2);
  CHECK(q.kernels[0].name == "k0_S_init");
}

TEST_CASE("a row with no outer output loop is split into parallel blocks of 256") {
  LoweredProgram p = lower_tile("function (X[M, N]) -> (S) { S[j : N] = +(X[k, j]); }",
                                {Shape(DType::F32, {4, 600})});
  CHECK(print(p) ==
        "kernel k0_S(reads: s0, s1; writes: s1) {\n"
        "  parallel for j$blk in [0, 3) {\n"
        "    for j in [(j$blk * 256), min(((j$blk * 256) + 256), 600)) {\n"
        "      s1[j] = 0:f32\n"
        "    }\n"
        "    for k in [0, 4) {\n"
        "      for j in [(j$blk * 256), min(((j$blk * 256) + 256), 600)) {\n"
        "        s1[j] = (s1[j]:f32 + s0[((k * 600) + j)]:f32)\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
  CHECK(loop::parallel_extent(p.kernels[0]) == 3);
}

TEST_CASE("row-form f16 accumulates rows in an f32 buffer and rounds each row once") {
  LoweredProgram p = lower_tile(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
      {Shape(DType::F16, {3, 5}), Shape(DType::F16, {5, 4})});
  REQUIRE(p.slots.size() == 4);
  CHECK(p.slots[3].role == BufferSlot::Role::kTemp);
  CHECK(p.slots[3].shape == Shape(DType::F32, {3, 4}));
  CHECK(print(p) ==
        "kernel k0_C(reads: s0, s1, s3; writes: s2, s3) {\n"
        "  parallel for i in [0, 3) {\n"
        "    for j in [0, 4) {\n"
        "      s3[((i * 4) + j)] = 0:f32\n"
        "    }\n"
        "    for k in [0, 5) {\n"
        "      for j in [0, 4) {\n"
        "        s3[((i * 4) + j)] = "
        "(s3[((i * 4) + j)]:f32 + f32((s0[((i * 5) + k)]:f16 * s1[((k * 4) + j)]:f16)))\n"
        "      }\n"
        "    }\n"
        "    for j in [0, 4) {\n"
        "      s2[((i * 4) + j)] = f16(s3[((i * 4) + j)]:f32)\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("conv padding guards sit at the reduction loop that decides them, outside co") {
  LoweredProgram p = lower_tile(
      "function (I[N, X, CI], K[KX, CI, CO]) -> (O) {\n"
      "  O[n, x, co : N, X, CO] = +(I[n, x + i - 1, ci] * K[i, ci, co]);\n"
      "}",
      {Shape(DType::F32, {1, 6, 2}), Shape(DType::F32, {3, 2, 8})});
  CHECK(print(p) ==
        "kernel k0_O(reads: s0, s1, s2; writes: s2) {\n"
        "  parallel for x in [0, 6) {\n"
        "    for co in [0, 8) {\n"
        "      s2[((x * 8) + co)] = 0:f32\n"
        "    }\n"
        "    for i in [0, 3) {\n"
        "      if (((i + x) >= 1) & ((i + x) <= 6)) {\n"
        "        for ci in [0, 2) {\n"
        "          for co in [0, 8) {\n"
        "            s2[((x * 8) + co)] = "
        "(s2[((x * 8) + co)]:f32 + (s0[((((i + x) + -1) * 2) + ci)]:f32 * "
        "s1[(((i * 16) + (ci * 8)) + co)]:f32))\n"
        "          }\n"
        "        }\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("elementwise broadcasting uses stride 0 for stretched dims and skips size-1 dims") {
  LoweredProgram p = lower_tile("function (A[M, N], B[N]) -> (R) { R = A + B; }",
                                {Shape(DType::F32, {2, 3}), Shape(DType::F32, {3})});
  CHECK(print(p) ==
        "kernel k0_R(reads: s0, s1; writes: s2) {\n"
        "  parallel for i0 in [0, 2) {\n"
        "    independent for i1 in [0, 3) {\n"
        "      s2[((i0 * 3) + i1)] = (s0[((i0 * 3) + i1)]:f32 + s1[i1]:f32)\n"
        "    }\n"
        "  }\n"
        "}\n");
  LoweredProgram q = lower_tile("function (A[M, N], B[P, Q]) -> (R) { R = A * B; }",
                                {Shape(DType::F32, {1, 4}), Shape(DType::F32, {3, 1})});
  CHECK(print(q) ==
        "kernel k0_R(reads: s0, s1; writes: s2) {\n"
        "  parallel for i0 in [0, 3) {\n"
        "    independent for i1 in [0, 4) {\n"
        "      s2[((i0 * 4) + i1)] = (s0[i1]:f32 * s1[i0]:f32)\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("padding constraints become guards at the loop that decides them") {
  LoweredProgram p = lower_tile(
      "function (I[N]) -> (O) { O[x : N] = +(I[x + k - 1]), k < 3; }",
      {Shape(DType::F32, {5})});
  std::string text = print(p);
  // Row form: x (unit stride in O and I) innermost, so the guard on k + x goes inside it.
  CHECK(text ==
        "kernel k0_O(reads: s0, s1; writes: s1) {\n"
        "  for x in [0, 5) {\n"
        "    s1[x] = 0:f32\n"
        "  }\n"
        "  for k in [0, 3) {\n"
        "    for x in [0, 5) {\n"
        "      if (((k + x) >= 1) & ((k + x) <= 5)) {\n"
        "        s1[x] = (s1[x]:f32 + s0[((k + x) + -1)]:f32)\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("outputs that are inputs or repeat another output get copy kernels") {
  LoweredProgram p = lower_tile("function (A[N]) -> (X, Y, Z) { X = A; Y = exp(A); Z = Y; }",
                                {Shape(DType::F32, {4})});
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.kernels[0].name == "k0_Y");
  CHECK(p.kernels[1].name == "k1_copy_X");
  CHECK(p.kernels[2].name == "k2_copy_Z");
  CHECK(p.slots.size() == 4);  // one input, three outputs, no temporaries
}

TEST_CASE("a reshape is a view of its operand's buffer, a reshaped output is a copy") {
  // T = reshape(S) has no kernel and no buffer: O's kernel reads S's. R, an output, has its
  // own buffer (the caller's), filled by a copy kernel.
  LoweredProgram p = lower_tile(
      "function (X[M, N]) -> (O, R) {\n"
      "  S = X * 2;\n  T = reshape(S, N, M);\n  O = T + 1;\n  R = reshape(S, M * N);\n}",
      {Shape(DType::F32, {2, 6})});
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.kernels[0].name == "k0_S");
  CHECK(p.kernels[1].name == "k1_O");
  CHECK(p.kernels[2].name == "k2_R");
  CHECK(p.slots.size() == 4);  // X, O, R, S: none for T
  CHECK(p.kernels[1].reads == p.kernels[0].writes);
  CHECK(p.kernels[2].reads == p.kernels[0].writes);
  // Reshaping an input reads the input itself.
  LoweredProgram in = lower_tile("function (X[M, N]) -> (O) { O = reshape(X, N, M) * 3; }",
                                 {Shape(DType::F32, {2, 6})});
  REQUIRE(in.kernels.size() == 1);
  CHECK(in.kernels[0].reads == std::vector<int>{0});
}

TEST_CASE("literals are inlined, never buffers") {
  LoweredProgram p = lower_tile("function (A[N]) -> (R) { R = A * 2 + 1.5; }",
                                {Shape(DType::F32, {4})});
  for (const auto& slot : p.slots) CHECK(slot.shape.rank() == 1);
  CHECK(print(p).find("(s0[i0]:f32 * 2:f32)") != std::string::npos);
  CHECK(print(p).find("1.5:f32") != std::string::npos);
}

TEST_CASE("f16 sums accumulate in f32 and round once") {
  LoweredProgram p = lower_tile("function (A[N, K]) -> (R) { R[n : N] = +(A[n, k]); }",
                                {Shape(DType::F16, {3, 4})});
  std::string text = print(p);
  CHECK(text.find("var $acc: f32 = 0:f32") != std::string::npos);
  CHECK(text.find("s1[n] = f16($acc)") != std::string::npos);
}

TEST_CASE("prng runs its 2048 generators in a parallel loop") {
  LoweredProgram p = lower_tile(
      "function (S[A, B]) -> (R) { P = prng_step(S, 4, 5); R = prng_value(P); }",
      {Shape(DType::U32, {3, 2048})});
  REQUIRE(p.kernels.size() == 2);
  CHECK(loop::parallel_extent(p.kernels[1]) == 2048);
  CHECK(loop::to_string(p.kernels[1]).find("for i in [g, 20) step 2048") != std::string::npos);
}

}  // namespace
}  // namespace plaidml::jit
