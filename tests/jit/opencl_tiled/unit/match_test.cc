// The register-form matcher and the tiling plan on real lowered programs.
#include <doctest/doctest.h>

#include "jit/codegen/gpu/contraction_match.h"
#include "jit/codegen/gpu/tiled_layout.h"
#include "jit/loop/printer.h"
#include "jit/gpu_lowering.h"

namespace plaidml::jit::gpu {
namespace {

using jit::testing::lower_gpu;

// The kernel that writes the program's output (the contraction itself, not an init kernel).
const loop::Kernel& last_kernel(const LoweredProgram& p) { return p.kernels.back(); }

LoadSide side_of(const std::vector<ClassifiedLoad>& loads, int slot) {
  for (const auto& l : loads) {
    if (l.load->slot == slot) return l.side;
  }
  FAIL("no load of slot " << slot);
  return LoadSide::kGlobal;
}

TEST_CASE("matmul: band i then j, k staged, A on the m side and B on the n side") {
  LoweredProgram p = lower_gpu(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
      {Shape(DType::F32, {16, 24}), Shape(DType::F32, {24, 8})});
  const loop::Kernel& k = last_kernel(p);
  auto form = match_register_form(k);
  REQUIRE_MESSAGE(form.has_value(), loop::to_string(k));
  CHECK(form->band.size() == 2);
  CHECK(form->n_loop().var == "j");
  REQUIRE(form->m_loops().size() == 1);
  CHECK(form->m_loops()[0]->var == "i");
  CHECK(form->k_loop().var == "k");
  CHECK(loop::trip_count(form->k_loop()) == 24);
  CHECK(form->uniform_band_count() == 0);
  CHECK(form->epilogue.size() == 1);
  CHECK(form->epilogue[0]->kind == loop::StmtKind::kStore);
  auto loads = classify_loads(*form);
  REQUIRE(loads.size() == 2);
  CHECK(side_of(loads, 0) == LoadSide::kM);
  CHECK(side_of(loads, 1) == LoadSide::kN);
  auto plan = plan_tiled(*form);
  REQUIRE(plan.has_value());
  CHECK(plan->problem.m == 16);
  CHECK(plan->problem.n == 8);
  CHECK(plan->problem.k == 24);
  CHECK(plan->problem.m_tile_bytes == 4);
  CHECK(plan->problem.n_tile_bytes == 4);
  CHECK(plan->point_guards.empty());
  // No guard, both loads staged: the points run the compute step without a branch.
  CHECK(plan->unguarded_points);
  // A[i, k] is contiguous along k: staged k fastest; B[k, j] along j.
  CHECK(plan->tiles[0].k_fastest);
  CHECK_FALSE(plan->tiles[1].k_fastest);
}

TEST_CASE("padded conv: rows and columns merge into one m (an implicit GEMM), guards per point") {
  LoweredProgram p = lower_gpu(
      "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, H, W, CO] = +(I[n, x + i - 1, y + j - 1, c] * F[i, j, c, co]);\n"
      "}",
      {Shape(DType::F32, {1, 6, 6, 8}), Shape(DType::F32, {3, 3, 8, 4})});
  const loop::Kernel& k = last_kernel(p);
  auto form = match_register_form(k);
  REQUIRE_MESSAGE(form.has_value(), loop::to_string(k));
  CHECK(form->band.size() == 3);
  CHECK(form->n_loop().var == "co");
  // F reads neither x nor y: both join the m group, 6 x 6 rows of the GEMM.
  REQUIRE(form->m_loops().size() == 2);
  CHECK(form->m_loops()[0]->var == "x");
  CHECK(form->m_loops()[1]->var == "y");
  CHECK(form->m_extent() == 36);
  CHECK(form->uniform_band_count() == 0);
  CHECK(form->k_loop().var == "c");
  auto loads = classify_loads(*form);
  CHECK(side_of(loads, 0) == LoadSide::kM);
  CHECK(side_of(loads, 1) == LoadSide::kN);
  auto plan = plan_tiled(*form);
  REQUIRE(plan.has_value());
  CHECK(plan->problem.m == 36);
  CHECK(plan->problem.uniform == 1);
  CHECK(plan->problem.serial == 9);
  // The x guard reads x and i, the y guard y and j: both m variables, so both run per point.
  CHECK(plan->uniform_ifs.empty());
  CHECK(plan->point_guards.size() == 2);
  CHECK_FALSE(plan->unguarded_points);
  // The image tile is protected by both guards (their variables are all known to it).
  CHECK(plan->tiles[0].safety.size() >= 2);
  // I is contiguous along c and strided along y: staged c fastest.
  CHECK(plan->tiles[0].k_fastest);
}

TEST_CASE("a batched matmul keeps its batch uniform: B reads the batch and n") {
  LoweredProgram p = lower_gpu(
      "function (A[B, M, K], X[B, K, N]) -> (C) {\n"
      "  C[b, i, j : B, M, N] = +(A[b, i, k] * X[b, k, j]);\n"
      "}",
      {Shape(DType::F32, {3, 16, 24}), Shape(DType::F32, {3, 24, 8})});
  auto form = match_register_form(last_kernel(p));
  REQUIRE(form.has_value());
  REQUIRE(form->m_loops().size() == 1);
  CHECK(form->m_loops()[0]->var == "i");
  CHECK(form->uniform_band_count() == 1);
  auto loads = classify_loads(*form);
  CHECK(side_of(loads, 0) == LoadSide::kM);
  CHECK(side_of(loads, 1) == LoadSide::kN);
  auto plan = plan_tiled(*form);
  REQUIRE(plan.has_value());
  CHECK(plan->problem.uniform == 3);
  CHECK(plan->problem.m == 16);
}

TEST_CASE("max pool matches, but nothing can be staged: every load reads m, n and k") {
  LoweredProgram p = lower_gpu(
      "function (I[H, W]) -> (O) { O[x, y : 4, 4] = >(I[2 * x + i, 2 * y + j]), i < 2, j < 2; }",
      {Shape(DType::F32, {8, 8})});
  const loop::Kernel& k = last_kernel(p);
  auto form = match_register_form(k);
  REQUIRE_MESSAGE(form.has_value(), loop::to_string(k));
  CHECK(form->k_loop().var == "j");
  auto loads = classify_loads(*form);
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].side == LoadSide::kGlobal);
  CHECK_FALSE(plan_tiled(*form).has_value());
}

TEST_CASE("the memory form O[i + j] and a reduction to a scalar do not match") {
  LoweredProgram p = lower_gpu(
      "function (A[M], B[N]) -> (O) { O[i + j : M + N - 1] = +(A[i] * B[j]); }",
      {Shape(DType::F32, {5}), Shape(DType::F32, {4})});
  for (const auto& k : p.kernels) CHECK_FALSE(match_register_form(k).has_value());
  LoweredProgram q = lower_gpu("function (X[M, N]) -> (S) { S[] = +(X[i, j]); }",
                               {Shape(DType::F32, {3, 5})});
  for (const auto& k : q.kernels) CHECK_FALSE(match_register_form(k).has_value());
}

TEST_CASE("an elementwise kernel has no reduction loop and does not match") {
  LoweredProgram p = lower_gpu("function (A[M, N]) -> (O) { O = A + A; }",
                               {Shape(DType::F32, {4, 8})});
  for (const auto& k : p.kernels) CHECK_FALSE(match_register_form(k).has_value());
}

TEST_CASE("a matrix-vector product stages the vector as a k-only tile") {
  LoweredProgram p = lower_gpu(
      "function (A[M, K], X[K]) -> (Y) { Y[i : M] = +(A[i, k] * X[k]); }",
      {Shape(DType::F32, {32, 16}), Shape(DType::F32, {16})});
  auto form = match_register_form(last_kernel(p));
  REQUIRE(form.has_value());
  CHECK_FALSE(form->has_m());
  auto loads = classify_loads(*form);
  CHECK(side_of(loads, 0) == LoadSide::kN);
  CHECK(side_of(loads, 1) == LoadSide::kK);
}

TEST_CASE("linear_coeff reads strides of affine index expressions") {
  auto e = loop::idx_add(loop::idx_mul(loop::var("i"), 7), loop::var("k"));
  CHECK(linear_coeff(*e, "i") == 7);
  CHECK(linear_coeff(*e, "k") == 1);
  CHECK(linear_coeff(*e, "z") == 0);
  auto d = loop::op(ir::OpKind::Div, DType::I64, {loop::var("i"), loop::int_const(2)});
  CHECK_FALSE(linear_coeff(*d, "i").has_value());
}

}  // namespace
}  // namespace plaidml::jit::gpu
