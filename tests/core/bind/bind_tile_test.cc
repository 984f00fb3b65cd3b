// Binding programs written in Tile text: the parser and the builder feed bind() exactly as the
// C API does, so these check the whole front half of the pipeline on docs/tile.md's examples.
#include <doctest/doctest.h>

#include "core/ir/bind.h"
#include "core/parse/parse.h"

namespace plaidml::ir {
namespace {

Expected<BoundProgram> bind_text(const char* text, const std::vector<Shape>& shapes) {
  auto p = parse::parse_tile(text, "t");
  if (!p) return p.status();
  return bind(*p, shapes);
}

const BoundContraction& contraction_of(const BoundProgram& b, const std::string& name) {
  for (size_t i = 0; i < b.program->nodes.size(); ++i) {
    if (b.program->nodes[i].name == name && b.nodes[i].contraction) return *b.nodes[i].contraction;
  }
  FAIL("no contraction named " << name);
  static BoundContraction none;
  return none;
}

TEST_CASE("tile: matmul plus bias and relu") {
  auto b =
      bind_text(R"(
function (A[M, K], B[K, N], Bias[N]) -> (R) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
  R = relu(C + Bias);
})",
                {Shape(DType::F32, {2, 3}), Shape(DType::F32, {3, 4}), Shape(DType::F32, {4})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::F32, {2, 4}));
}

TEST_CASE("tile: max pool with stride and user constraints") {
  auto b = bind_text(R"(
function (I[N, X, Y, C]) -> (O) {
  O[n, x, y, c : N, (X + 1)/2, (Y + 1)/2, C] = >(I[n, 2*x + i, 2*y + j, c]), i < 2, j < 2;
})",
                     {Shape(DType::F16, {1, 5, 4, 3})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::F16, {1, 3, 2, 3}));
  const auto& c = contraction_of(*b, "O");
  CHECK(c.indices == std::vector<std::string>{"n", "x", "y", "c", "i", "j"});
  CHECK(c.ranges[1].hi == 2);
  CHECK(c.ranges[4].hi == 1);
  // 2*x + i reaches 5 at x = 2, i = 1: outside X = 5, so it stays a guard; 2*y + j <= 3 < 4 does
  // not.
  REQUIRE(c.residual.size() == 1);
  CHECK(c.residual[0].to_string() == "0 <= i + 2*x <= 4");
}

TEST_CASE("tile: broadcasting error carries the line and column") {
  auto b = bind_text("function (A[N], B[M]) -> (R) {\n  R = A + B;\n}",
                     {Shape(DType::F32, {3}), Shape(DType::F32, {4})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kTypeError);
  CHECK(b.status().message().find("cannot broadcast 'A' (f32[3]) with 'B' (f32[4]) in 'A + B'") !=
        std::string::npos);
  CHECK(b.status().message().rfind("2:", 0) == 0);
}

TEST_CASE("tile: dim mismatch between inputs") {
  auto b =
      bind_text("function (A[M, K], B[K, N]) -> (C) {\n  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n}",
                {Shape(DType::F32, {2, 3}), Shape(DType::F32, {4, 4})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().message().find("dimension 'K' is 3 in 'A' but 4 in 'B'") != std::string::npos);
}

}  // namespace
}  // namespace plaidml::ir
