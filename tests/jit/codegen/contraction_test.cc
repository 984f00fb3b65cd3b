// Contractions compiled to native code, against hand-computed values and the interpreter.
#include <cmath>
#include <cstdlib>
#include <functional>

#include "jit/codegen/harness.h"
#include "support/log_capture.h"

namespace plaidml::jit::testing {
namespace {

using plaidml::testing::make_tensor;
using plaidml::testing::to_doubles;

TEST_CASE("matmul by hand and at shapes that are not multiples of a vector width") {
  const char* kMatmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  auto out = check_against_interpreter(
      kMatmul, {make_tensor(DType::F32, {2, 2}, {1, 2, 3, 4}),
                make_tensor(DType::F32, {2, 2}, {5, 6, 7, 8})});
  CHECK(to_doubles(out[0]) == std::vector<double>{19, 22, 43, 50});
  for (int64_t m : {1, 3, 17}) {
    for (int64_t n : {1, 7, 33}) {
      for (int64_t k : {1, 31}) {
        check_against_interpreter(kMatmul, {random(DType::F32, {m, k}, 1 + m * n),
                                            random(DType::F32, {k, n}, 2 + k)});
      }
    }
  }
}

TEST_CASE("matmul in every dtype") {
  const char* kMatmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  for (DType d : {DType::Bool, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
                  DType::U16, DType::U32, DType::U64, DType::F16, DType::BF16, DType::F32,
                  DType::F64}) {
    CAPTURE(dtype_name(d));
    check_against_interpreter(kMatmul, {random(d, {5, 9}, 11), random(d, {9, 3}, 12)});
  }
}

TEST_CASE("i8 sums wrap in the output dtype") {
  auto out = check_against_interpreter(
      "function (A[N]) -> (S) { S[] = +(A[i]); }",
      {make_tensor(DType::I8, {3}, {100, 100, 100})});
  CHECK(to_doubles(out[0]) == std::vector<double>{44});  // 300 mod 256
}

TEST_CASE("conv with padding and strides") {
  const char* kConv =
      "function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, (X + 1) / 2, (Y + 1) / 2, CO] =\n"
      "      +(I[n, 2 * x + i - 1, 2 * y + j - 1, ci] * K[i, j, ci, co]);\n"
      "}";
  check_against_interpreter(kConv, {random(DType::F32, {2, 7, 6, 3}, 3),
                                    random(DType::F32, {3, 3, 3, 5}, 4)});
  const char* kSame =
      "function (I[N, X, CI], K[KX, CI, CO]) -> (O) {\n"
      "  O[n, x, co : N, X, CO] = +(I[n, x + i - KX / 2, ci] * K[i, ci, co]);\n"
      "}";
  check_against_interpreter(kSame, {random(DType::F32, {1, 17, 2}, 5),
                                    random(DType::F32, {5, 2, 3}, 6)});
}

TEST_CASE("max pool and min") {
  const char* kPool =
      "function (I[N, X, Y, C]) -> (O) {\n"
      "  O[n, x, y, c : N, (X + 1) / 2, (Y + 1) / 2, C] = >(I[n, 2 * x + i, 2 * y + j, c]),\n"
      "      i < 2, j < 2;\n"
      "}";
  check_against_interpreter(kPool, {random(DType::F32, {1, 5, 7, 3}, 7)});
  check_against_interpreter(kPool, {random(DType::I16, {2, 4, 3, 1}, 8)});
  check_against_interpreter("function (A[M, N]) -> (R) { R[m : M] = <(A[m, n]); }",
                            {random(DType::F16, {3, 33}, 9)});
}

TEST_CASE("cumulative sum") {
  auto out = check_against_interpreter("function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }",
                                       {make_tensor(DType::F32, {4}, {1, 2, 3, 4})});
  CHECK(to_doubles(out[0]) == std::vector<double>{1, 3, 6, 10});
  check_against_interpreter("function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }",
                            {random(DType::I32, {31}, 10)});
}

TEST_CASE("rational indices skip non-integer points") {
  auto out = check_against_interpreter(
      "function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1) / 2] * K[j]); }",
      {make_tensor(DType::F32, {3}, {1, 2, 3}), make_tensor(DType::F32, {3}, {1, 2, 3})});
  CHECK(to_doubles(out[0]) == std::vector<double>{2, 5, 4, 9, 6});
}

TEST_CASE("memory-form outputs: O[i + j], O[2 * i], and f16 accumulation there") {
  check_against_interpreter(
      "function (A[N], B[M]) -> (O) { O[i + j : N + M - 1] = +(A[i] * B[j]); }",
      {random(DType::F32, {7}, 13), random(DType::F32, {5}, 14)});
  check_against_interpreter(
      "function (A[N], B[M]) -> (O) { O[i + j : N + M - 1] = +(A[i] * B[j]); }",
      {random(DType::F16, {17}, 15), random(DType::F16, {9}, 16)});
  auto out = check_against_interpreter("function (A[N]) -> (O) { O[2 * i : 2 * N] = +(A[i]); }",
                                       {make_tensor(DType::I32, {3}, {4, 5, 6})});
  CHECK(to_doubles(out[0]) == std::vector<double>{4, 0, 5, 0, 6, 0});
}

TEST_CASE("identities, defaults, assign and the ternary form") {
  auto out = check_against_interpreter(
      "function (A[N]) -> (O) { O[i : N + 2] = >(A[i]); }",
      {make_tensor(DType::F32, {2}, {1, 2})});
  CHECK(to_doubles(out[0])[3] == -INFINITY);
  check_against_interpreter(
      "function (A[N], D[M]) -> (O) { O[i : M] = +(A[i]) default D; }",
      {random(DType::F32, {3}, 17), random(DType::F32, {5}, 18)});
  check_against_interpreter(
      "function (A[N, M]) -> (O) { O[i, j : M, N] = =(A[j, i]); }",
      {random(DType::I64, {3, 4}, 19)});
  check_against_interpreter(
      "function (X[N, M], Idx[M]) -> (O) {\n"
      "  Mx[i : N] = >(X[i, j]);\n"
      "  O[i : N] = +(X[i, j] == Mx[i] ? Idx[j]);\n"
      "}",
      {random(DType::F32, {4, 6}, 20), make_tensor(DType::I32, {6}, {0, 1, 2, 3, 4, 5})});
  check_against_interpreter(
      "function (A[N], B[N]) -> (O) { O[i : N] = +(A[i] == B[i]); }",
      {make_tensor(DType::I32, {3}, {1, 2, 3}), make_tensor(DType::I32, {3}, {1, 0, 3})});
}

TEST_CASE("a product and an empty contraction") {
  check_against_interpreter("function (A[N, M]) -> (O) { O[i : N] = *(A[i, j]); }",
                            {random(DType::F64, {3, 5}, 21)});
  check_against_interpreter("function (A[N]) -> (O) { O[i : N] = +(A[i + 10]); }",
                            {random(DType::F32, {4}, 22)});
}

TEST_CASE("row form: blocked rows split across calls, guards on the row, defaults, products") {
  // No outer output loop: the row is split into parallel blocks of 256 (600 = 2 * 256 + 88).
  check_against_interpreter("function (X[M, N]) -> (S) { S[j : N] = +(X[k, j]); }",
                            {random(DType::F32, {5, 600}, 31)});
  check_against_interpreter("function (X[M, N]) -> (S) { S[j : N] = >(X[k, j]); }",
                            {random(DType::I32, {3, 513}, 32)});
  const char* kMatmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  check_against_interpreter(kMatmul, {random(DType::F32, {1, 7}, 33),
                                      random(DType::F32, {7, 700}, 34)});
  check_against_interpreter(kMatmul, {random(DType::BF16, {1, 9}, 35),
                                      random(DType::BF16, {9, 300}, 36)});
  // A padding guard that involves the (blocked) row variable.
  check_against_interpreter(
      "function (I[N, X]) -> (O) { O[n, x : N, X] = +(I[n, x + k - 1]), k < 3; }",
      {random(DType::F32, {1, 600}, 37)});
  check_against_interpreter(
      "function (A[M, K], B[K, N], D[N]) -> (C) {\n"
      "  C[i, j : M, N] = +(A[i, k] * B[k, j]) default D;\n"
      "}",
      {random(DType::F32, {3, 4}, 38), random(DType::F32, {4, 5}, 39),
       random(DType::F32, {5}, 40)});
  check_against_interpreter("function (A[M, K, N]) -> (O) { O[i, j : M, N] = *(A[i, k, j]); }",
                            {random(DType::F64, {3, 4, 17}, 41)});
  check_against_interpreter("function (A[M, K, N]) -> (O) { O[i, j : M, N] = <(A[i, k, j]); }",
                            {random(DType::F16, {2, 5, 19}, 42)});
}

TEST_CASE("row form: rows the loops do not cover, rational indices, integer wrap") {
  // Columns N, N + 1 are never reached: a separate init (and, for f16, round) kernel.
  check_against_interpreter(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N + 2] = +(A[i, k] * B[k, j]); }",
      {random(DType::F16, {3, 6}, 43), random(DType::F16, {6, 5}, 44)});
  check_against_interpreter(
      "function (A[M, N]) -> (O) { O[i, j : (M + 1) / 2 + 1, N] = +(A[(i + k) / 2, j]), k < 3; }",
      {random(DType::F32, {5, 4}, 45)});
  auto out = check_against_interpreter(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
      {make_tensor(DType::I8, {1, 3}, {100, 100, 100}),
       make_tensor(DType::I8, {3, 2}, {1, 2, 1, 2, 1, 2})});
  CHECK(to_doubles(out[0]) == std::vector<double>{44, 88});  // 300 and 600 mod 256, signed
}

}  // namespace
}  // namespace plaidml::jit::testing

namespace plaidml::jit::testing {
namespace {

// The optimized LLVM IR of what `fn` compiles (PLAIDML_DUMP=llvm, captured from the log).
std::string dumped_llvm(const std::function<void()>& fn) {
  plaidml::testing::LogCapture log;
  ::setenv("PLAIDML_DUMP", "llvm", 1);
  fn();
  ::unsetenv("PLAIDML_DUMP");
  return log.all();
}

TEST_CASE("a float sum over the contiguous axis is vectorized, in another order of adds") {
  // A serial chain of adds (one per element, each waiting for the last) unless the adds may be
  // reassociated: then LLVM sums the row in vector accumulators. Within f32 rounding of the
  // interpreter's order; a max keeps its order (vectorizing it would need "no NaNs").
  const char* sum = "function (X[M, N]) -> (O) { O[i : M] = +(X[i, j]); }";
  std::string ir = dumped_llvm(
      [&] { check_against_interpreter(sum, {random(DType::F32, {37, 301}, 3)}); });
  CHECK(ir.find("llvm.vector.reduce.fadd") != std::string::npos);
  const char* max = "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }";
  std::vector<double> v(3 * 40);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k % 17);
  v[45] = std::nan("");  // row 1: maxnum ignores the NaN, as the interpreter does
  auto out = check_against_interpreter(max, {make_tensor(DType::F32, {3, 40}, v)});
  CHECK(to_doubles(out[0]) == std::vector<double>{16, 16, 16});
}

TEST_CASE("GPU-only statements in a CPU kernel fail its code generation with the reason") {
  // A barrier or a cooperative-matrix statement reaching the LLVM code generator (no CPU pass
  // makes either) is an internal error naming the statement, not a miscompiled kernel.
  ir::BoundProgram bound =
      bind_tile("function (A[N]) -> (B) { B = A + 1; }", {Shape(DType::F32, {8})});
  struct Case {
    loop::StmtPtr statement;
    const char* says;
  };
  const Case cases[] = {{loop::barrier(), "a workgroup barrier, which only GPU kernels hold"},
                        {loop::matrix("frags", loop::MatrixOp{}),
                         "a cooperative-matrix operation, which only Vulkan kernels hold"}};
  for (const Case& c : cases) {
    INFO(c.says);
    auto lowered = lower(bound);
    REQUIRE(lowered.has_value());
    REQUIRE(!lowered->kernels.empty());
    lowered->kernels[0].body->body.push_back(c.statement);
    auto artifact = emit_llvm_object(*lowered, target());
    REQUIRE_FALSE(artifact.has_value());
    CHECK(artifact.status().code() == StatusCode::kInternal);
    CHECK(artifact.status().message().find(c.says) != std::string::npos);
  }
}

}  // namespace
}  // namespace plaidml::jit::testing
