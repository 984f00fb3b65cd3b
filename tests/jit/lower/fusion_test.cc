// Epilogue fusion (jit/lower/fusion.h) and the GPU lowering (LowerOptions::gpu): which kernels
// and buffers a program gets, and the loop IR of a fused store. Numeric results of fused chains
// are checked on every device by the conformance suite (matmul_bias_relu, conv2d_bias_relu, ...).
#include <doctest/doctest.h>

#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/loop/printer.h"
#include "jit/lower/lower.h"
#include "jit/passes/pipeline.h"
#include "lowered_text.h"

namespace plaidml::jit {
namespace {

LoweredProgram lower_with(const std::string& text, const std::vector<Shape>& shapes, bool gpu) {
  auto program = parse::parse_tile(text);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  LowerOptions options;
  options.gpu = gpu;
  auto lowered = lower(*bound, options);
  REQUIRE_MESSAGE(lowered.has_value(), lowered.status().message());
  Status status = passes::run_pipeline(*lowered, passes::PipelineOptions{});
  REQUIRE_MESSAGE(status.is_ok(), status.message());
  return std::move(*lowered);
}

const char* kMatmulBiasRelu =
    "function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "  R = relu(C + Bias);\n"
    "}";

TEST_CASE("gpu lowering: matmul + bias + relu is one kernel whose store applies the epilogue") {
  LoweredProgram p = lower_with(kMatmulBiasRelu,
                                {Shape(DType::F32, {3, 5}), Shape(DType::F32, {5, 4}),
                                 Shape(DType::F32, {4})},
                                /*gpu=*/true);
  // Inputs and the output only: neither C nor C + Bias gets a buffer.
  CHECK(p.slots.size() == 4);
  CHECK(print(p) ==
        "kernel k0_C(reads: s0, s1, s2; writes: s3) {\n"
        "  parallel for i in [0, 3) {\n"
        "    independent for j in [0, 4) {\n"
        "      var $acc: f32 = 0:f32\n"
        "      for k in [0, 5) {\n"
        "        $acc = ($acc + (s0[((i * 5) + k)]:f32 * s1[((k * 4) + j)]:f32))\n"
        "      }\n"
        "      s3[((i * 4) + j)] = relu(($acc + s2[j]:f32))\n"
        "    }\n"
        "  }\n"
        "}\n");
  std::vector<const loop::Stmt*> band = loop::find_band(p.kernels[0]);
  REQUIRE(band.size() == 2);
  CHECK(band[0]->var == "i");
  CHECK(band[1]->var == "j");
}

TEST_CASE("cpu lowering fuses the epilogue into the row form: applied in place per row") {
  LoweredProgram p = lower_with(kMatmulBiasRelu,
                                {Shape(DType::F32, {3, 5}), Shape(DType::F32, {5, 4}),
                                 Shape(DType::F32, {4})},
                                /*gpu=*/false);
  REQUIRE(p.kernels.size() == 1);  // relu(C + Bias) in C's kernel, the add inlined
  CHECK(p.slots.size() == 4);      // A, B, Bias, O: C has no buffer
  CHECK(print(p).find("s3[((i * 4) + j)] = relu((s3[((i * 4) + j)]:f32 + s2[j]:f32))") !=
        std::string::npos);
}

TEST_CASE("the row form keeps a second kernel when the epilogue ends in another dtype") {
  LoweredProgram p = lower_with(
      "function (A[M, K], B[K, N]) -> (O) { C[i, j : M, N] = +(A[i, k] * B[k, j]); "
      "O = as_float(C, 64); }",
      {Shape(DType::F32, {3, 5}), Shape(DType::F32, {5, 4})}, /*gpu=*/false);
  CHECK(p.kernels.size() == 2);
}

TEST_CASE("cpu lowering fuses the epilogue of a register-form reduction") {
  LoweredProgram p = lower_with(
      "function (X[M, N]) -> (O) { S[i : M] = +(X[i, j]); O = sqrt(S * 2); }",
      {Shape(DType::F32, {3, 5})}, /*gpu=*/false);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.slots.size() == 2);
  CHECK(print(p).find("s1[i] = sqrt(($acc * 2:f32))") != std::string::npos);
}

TEST_CASE("no fusion when the contraction is also an output or has a second consumer") {
  std::vector<Shape> shapes = {Shape(DType::F32, {3, 5})};
  LoweredProgram output = lower_with(
      "function (X[M, N]) -> (S, O) { S[i : M] = +(X[i, j]); O = S * 2; }", shapes, true);
  CHECK(output.kernels.size() == 2);
  LoweredProgram shared = lower_with(
      "function (X[M, N]) -> (O, P) { S[i : M] = +(X[i, j]); O = S * 2; P = S + 1; }", shapes,
      true);
  CHECK(shared.kernels.size() == 3);
}

TEST_CASE("no fusion into a consumer of another shape, nor into structural ops") {
  std::vector<Shape> shapes = {Shape(DType::F32, {3, 5}), Shape(DType::F32, {2, 3})};
  // S broadcasts into O's 2x3: the contraction's loops do not cover O's elements.
  LoweredProgram broadcast = lower_with(
      "function (X[M, N], Y[P, M]) -> (O) { S[i : M] = +(X[i, j]); O = S + Y; }", shapes, true);
  CHECK(broadcast.kernels.size() == 2);
  LoweredProgram structural = lower_with(
      "function (X[M, N]) -> (O) { S[i : M] = +(X[i, j]); O = reshape(S, 3, 1); }",
      {shapes[0]}, true);
  CHECK(structural.kernels.size() == 2);
}

TEST_CASE("a consumer of two contractions fuses with the first only") {
  LoweredProgram p = lower_with(
      "function (X[M, N]) -> (O) { S[i : M] = +(X[i, j]); T[i : M] = >(X[i, j]); O = S - T; }",
      {Shape(DType::F32, {3, 5})}, true);
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[0].name == "k0_T");
  CHECK(p.kernels[1].name == "k1_S");
}

TEST_CASE("gpu lowering: a contraction with an init kernel (partial cover) is not fused") {
  LoweredProgram p = lower_with(
      "function (X[N]) -> (O) { S[i : N] = +(X[i + 1]); O = S * 2; }",
      {Shape(DType::F32, {6})}, true);
  CHECK(p.kernels.size() == 3);  // init, accumulate, scale
}

}  // namespace
}  // namespace plaidml::jit

namespace plaidml::jit {
namespace {

TEST_CASE("elementwise trees are one kernel: single-use operands of the same dims inline") {
  LoweredProgram p = lower_with("function (X[N]) -> (O) { O = exp(X) + sin(X) * X; }",
                                {Shape(DType::F32, {5})}, /*gpu=*/false);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.slots.size() == 2);  // X and O only
  CHECK(print(p).find("s1[i0] = (exp(s0[i0]:f32) + (sin(s0[i0]:f32) * s0[i0]:f32))") !=
        std::string::npos);
}

TEST_CASE("a value used twice, an output, or broadcast into a bigger consumer is not inlined") {
  std::vector<Shape> shapes = {Shape(DType::F32, {3, 4}), Shape(DType::F32, {4})};
  LoweredProgram twice =
      lower_with("function (X[M, N]) -> (O) { T = exp(X); O = T + sin(T); }", {shapes[0]}, true);
  CHECK(twice.kernels.size() == 2);
  LoweredProgram output =
      lower_with("function (X[M, N]) -> (T, O) { T = exp(X); O = T * 2; }", {shapes[0]}, true);
  CHECK(output.kernels.size() == 2);
  LoweredProgram broadcast = lower_with(
      "function (X[M, N], B[N]) -> (O) { T = exp(B); O = X + T; }", shapes, true);
  CHECK(broadcast.kernels.size() == 2);
}

TEST_CASE("inlined operands join a contraction's epilogue") {
  LoweredProgram p = lower_with(
      "function (X[M, N], Y[M]) -> (O) { S[i : M] = +(X[i, j]); O = S + exp(Y) * 2; }",
      {Shape(DType::F32, {3, 5}), Shape(DType::F32, {3})}, /*gpu=*/true);
  REQUIRE(p.kernels.size() == 1);
  CHECK(print(p).find("s2[i] = ($acc + (exp(s1[i]:f32) * 2:f32))") != std::string::npos);
}

}  // namespace
}  // namespace plaidml::jit
