// Parsed programs mean what docs/tile.md says: parse -> bind -> reference interpreter, checked
// against hand-computed results.
#include <doctest/doctest.h>

#include "core/eval/interpreter.h"
#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

HostTensor f32(std::vector<int64_t> dims, std::vector<float> values) {
  HostTensor t(Shape(DType::F32, std::move(dims)));
  REQUIRE(values.size() == static_cast<size_t>(t.shape.elements()));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

std::vector<float> values(const HostTensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.shape.elements());
}

std::vector<HostTensor> run(const std::string& text, const std::vector<HostTensor>& inputs) {
  auto program = parse_tile(text);
  INFO(program.status().message());
  REQUIRE(program.has_value());
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(*program, shapes);
  INFO(bound.status().message());
  REQUIRE(bound.has_value());
  auto out = eval::evaluate(*bound, inputs);
  INFO(out.status().message());
  REQUIRE(out.has_value());
  return *out;
}

TEST_CASE("rational index: I = K = [1, 2, 3] gives [2, 5, 4, 9, 6]") {
  auto k = f32({3}, {1, 2, 3});
  auto out = run("function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1)/2] * K[j]); }", {k, k});
  CHECK(values(out[0]) == std::vector<float>{2, 5, 4, 9, 6});
}

TEST_CASE("a parenthesised dim expression is one value, evaluated exactly when bound") {
  auto x = f32({3}, {1, 2, 3});
  auto out = run("function (X[N]) -> (A, B, C) { A = (2147483647 + N); B = 2147483647 + N; "
                 "C = X * (floordiv(N, 2) - 3); }",
                 {x});
  REQUIRE(out[0].shape.dtype == DType::I64);  // 2147483650 does not fit i32
  CHECK(out[0].data<int64_t>()[0] == 2147483650);
  REQUIRE(out[1].shape.dtype == DType::I32);  // elementwise on two weak i32: wraps
  CHECK(out[1].data<int32_t>()[0] == -2147483646);
  CHECK(values(out[2]) == std::vector<float>{-2, -4, -6});
  // What is not dims and literals alone is elementwise code, with its own messages.
  auto index = parse_tile("function (X[N]) -> (A) { A = X * (i + 1); }");
  REQUIRE(!index.has_value());
  CHECK(index.status().message() ==
        "1:35: index variable 'i' can only be used inside a contraction");
  CHECK(values(run("function (X[N]) -> (A) { A = (X + N) * (N); }", {x})[0]) ==
        std::vector<float>{12, 15, 18});
}

TEST_CASE("matmul, cumulative sum and C-precedence elementwise") {
  auto a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  auto out =
      run("function (A[M, K], B[K, N]) -> (C, R) {\n"
          "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
          "  R = C - 2 * C / 4 + -1;  # C/2 - 1\n"
          "}",
          {a, b});
  CHECK(values(out[0]) == std::vector<float>{58, 64, 139, 154});
  CHECK(values(out[1]) == std::vector<float>{28, 31, 68.5, 76});
  out = run("function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }", {f32({4}, {1, 2, 3, 4})});
  CHECK(values(out[0]) == std::vector<float>{1, 3, 6, 10});
}

TEST_CASE("max pool with constraints") {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  auto out =
      run("function (I[N, X, Y, C]) -> (O) {\n"
          "  O[n, x, y, c : N, (X+1)/2, (Y+1)/2, C] = >(I[n, 2*x+i, 2*y+j, c]), i < 2, j < 2;\n"
          "}",
          {f32({1, 4, 4, 1}, v)});
  CHECK(values(out[0]) == std::vector<float>{5, 7, 13, 15});
}

TEST_CASE("ternary contraction (argmax-like) with inferred sizes") {
  auto x = f32({2, 3}, {1, 3, 2, 4, 0, 4});
  auto idx = f32({3}, {0, 1, 2});
  auto out =
      run("function (X[N, J], Idx[J]) -> (O) {\n"
          "  M[i] = >(X[i, j]);  O[i] = +(X[i, j] == M[i] ? Idx[j]);\n"
          "}",
          {x, idx});
  CHECK(values(out[0]) == std::vector<float>{1, 2});
}

TEST_CASE("assign with default overwrites only the touched elements") {
  auto out = run("function (X[N], D[N]) -> (O) { O[i : N] = =(X[i]), i < 2 default D; }",
                 {f32({4}, {1, 2, 3, 4}), f32({4}, {9, 9, 9, 9})});
  CHECK(values(out[0]) == std::vector<float>{1, 2, 9, 9});
}

}  // namespace
}  // namespace plaidml::parse
