// The GPU schedule (jit/codegen/gpu/gpu_schedule.h): which kernels of a program
// are tiled, with which tiles and launch, decided once for the OpenCL C and
// SPIR-V emitters.
#include <doctest/doctest.h>

#include <vector>

#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/gpu/reduction_merge.h"
#include "jit/gpu_lowering.h"
#include "jit/loop/printer.h"

namespace plaidml::jit::gpu {
namespace {

using jit::testing::lower_gpu;

GpuTarget schedule_target() {
  GpuTarget t;
  t.device_name = "test gpu";
  t.max_workgroup_size = 1024;
  t.local_memory_bytes = 49152;
  t.compute_units = 132;
  return t;
}

const char* kScheduleMatmulRelu =
    "function (A[M, K], B[K, N]) -> (R) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "  R = relu(C);\n"
    "}";

TEST_CASE("schedule: a matmul is tiled, an elementwise kernel is band-mapped") {
  LoweredProgram p = lower_gpu(
      "function (A[M, K], B[K, N], X[P, Q]) -> (C, Y) {\n"
      "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
      "  Y = exp(X);\n"
      "}",
      {Shape(DType::F32, {512, 256}), Shape(DType::F32, {256, 384}), Shape(DType::F32, {7, 5})});
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{});
  REQUIRE(s.kernels.size() == p.kernels.size());
  REQUIRE(s.tiled.size() == p.kernels.size());
  int tiled = 0;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    if (!s.tiled[i]) continue;
    ++tiled;
    const TiledSchedule& t = *s.tiled[i];
    REQUIRE(s.kernels[i].has_value());  // the tiled kernel is what the emitters print
    // The launch covers the 512 x 384 output with whole tiles, one thread per
    // register block.
    CHECK(int64_t{t.launch.grid[0]} * t.tiles.bn() >= 384);
    CHECK(int64_t{t.launch.grid[1]} * t.tiles.bm() >= 512);
    CHECK(t.launch.workgroup[0] == static_cast<uint32_t>(t.tiles.tx));
    CHECK(t.launch.workgroup[1] == static_cast<uint32_t>(t.tiles.ty));
    CHECK(t.plan.unguarded_points);
  }
  CHECK(tiled == 1);
}

TEST_CASE(
    "schedule: a grid past the dispatch limit, or a tiny matmul, is not "
    "tiled") {
  LoweredProgram p =
      lower_gpu(kScheduleMatmulRelu, {Shape(DType::F32, {512, 64}), Shape(DType::F32, {64, 512})});
  CHECK(schedule_tiled(p.kernels.back(), schedule_target(), DispatchLimits{}).has_value());
  DispatchLimits one_group;
  one_group.max_groups = 1;  // 512 x 512 needs more than one workgroup per dimension
  CHECK_FALSE(schedule_tiled(p.kernels.back(), schedule_target(), one_group).has_value());
  LoweredProgram tiny =
      lower_gpu(kScheduleMatmulRelu, {Shape(DType::F32, {2, 2}), Shape(DType::F32, {2, 2})});
  CHECK_FALSE(schedule_tiled(tiny.kernels.back(), schedule_target(), DispatchLimits{}).has_value());
}

TEST_CASE("schedule: a tile hint replaces the model's choice where it fits") {
  LoweredProgram p = lower_gpu(kScheduleMatmulRelu,
                               {Shape(DType::F32, {512, 256}), Shape(DType::F32, {256, 512})});
  const loop::Kernel& k = p.kernels.back();
  std::optional<TiledSchedule> model = schedule_tiled(k, schedule_target(), DispatchLimits{});
  REQUIRE(model.has_value());
  const std::vector<TileChoice> candidates =
      tiled_candidates(k, schedule_target(), DispatchLimits{}, 6);
  REQUIRE(candidates.size() >= 2);
  CHECK(candidates[0] == model->tiles);
  TileHints hints;
  hints.by_kernel[k.name] = candidates[1];
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{}, hints);
  REQUIRE(s.tiled.back().has_value());
  CHECK(s.tiled.back()->tiles == candidates[1]);
  CHECK(s.kernels.back()->launch.workgroup[0] == static_cast<uint32_t>(candidates[1].tx));
  // A hint past the device's workgroup limit is ignored: the model's tiles stay.
  hints.by_kernel[k.name] = TileChoice{64, 64, 1, 1, 8};
  s = schedule_program(p, schedule_target(), DispatchLimits{}, hints);
  CHECK(s.tiled.back()->tiles == model->tiles);
  // A band-mapped kernel has no candidates.
  LoweredProgram e = lower_gpu("function (X[N]) -> (Y) { Y = exp(X); }", {Shape(DType::F32, {64})});
  CHECK(tiled_candidates(e.kernels.back(), schedule_target(), DispatchLimits{}, 6).empty());
}

TEST_CASE(
    "schedule: a work-item's register block is groups of 4 consecutive points, read "
    "from rows padded by a group") {
  LoweredProgram p = lower_gpu(kScheduleMatmulRelu,
                               {Shape(DType::F32, {512, 256}), Shape(DType::F32, {256, 512})});
  const loop::Kernel& k = p.kernels.back();
  TileHints hints;
  hints.by_kernel[k.name] = TileChoice{16, 16, 8, 4, 8};  // 128 x 64 points, 8 x 4 registers
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{}, hints);
  REQUIRE(s.kernels.back().has_value());
  const GpuKernel& g = *s.kernels.back();
  const std::string text = loop::to_string(g.kernel);
  CAPTURE(text);
  // A[m, k] is the m side (64 + 4 per k row), B[k, n] the n side (128 + 4).
  REQUIRE(g.arrays.size() == 2);
  CHECK(g.arrays[0].elements == 8 * 68);
  CHECK(g.arrays[1].elements == 8 * 132);
  // n register 5 of work-item lid0 is point 4 * lid0 + 1 + 64 (the second group, 16 * 4 on),
  // m register 3 is 4 * lid1 + 3; each k step reads them from its tile row.
  CHECK(text.find("w1[((@kk * 132) + ((@lid0 * 4) + 65))]") != std::string::npos);
  CHECK(text.find("w0[((@kk * 68) + ((@lid1 * 4) + 3))]") != std::string::npos);
  CHECK(local_bytes(s.tiled.back()->plan.problem, TileChoice{16, 16, 8, 4, 8}) ==
        4 * (8 * 68 + 8 * 132));
}

TEST_CASE("schedule: register groups are 4, 2 or 1 points, rows padded to keep them aligned") {
  CHECK(register_group(8) == 4);
  CHECK(register_group(4) == 4);
  CHECK(register_group(6) == 2);
  CHECK(register_group(2) == 2);
  CHECK(register_group(3) == 1);
  CHECK(register_group(1) == 1);
  CHECK(padded_row(128, 8) == 132);
  CHECK(padded_row(32, 2) == 34);
  CHECK(padded_row(16, 1) == 17);  // one element against bank conflicts, as before groups
}

}  // namespace
}  // namespace plaidml::jit::gpu

namespace plaidml::jit::gpu {
namespace {

// The workgroup arrays and launch of the scheduled kernel that writes the program's output.
const GpuKernel& last_scheduled(const GpuSchedule& s) {
  REQUIRE(!s.kernels.empty());
  REQUIRE(s.kernels.back().has_value());
  return *s.kernels.back();
}

// The conditions of the multiply-adds inside the k-step loop ("@kk") of a tiled kernel.
void step_conditions(const loop::Stmt& s, bool inside, std::vector<const loop::Expr*>& out) {
  const bool in_step = inside || (s.kind == loop::StmtKind::kFor && s.var == "@kk");
  if (in_step && s.kind == loop::StmtKind::kIf) out.push_back(s.cond.get());
  for (const auto& b : s.body) step_conditions(*b, in_step, out);
}

const char* kPaddedConv =
    "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
    "  O[n, y, x, co : N, H, W, CO] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
    "}";

TEST_CASE("schedule: a padded convolution's multiply-adds run unguarded on zero-filled tiles") {
  // 2 * 9 * 9 = 162 rows and 40 channels out: no tile divides either, so points past the
  // extents exist; they read only the tiles' zero fill and are never stored. Where a point's
  // padding guard fails, the input tile holds a zero there too (the guard is one of its loads'
  // safety guards), so no multiply-add is guarded at all.
  LoweredProgram p =
      lower_gpu(kPaddedConv, {Shape(DType::F32, {2, 9, 9, 64}), Shape(DType::F32, {3, 3, 64, 40})});
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{});
  REQUIRE(s.tiled.back().has_value());
  const TiledPlan& plan = s.tiled.back()->plan;
  CHECK(s.tiled.back()->merged == nullptr);  // 64 channels fill the chunks: loops as lowered
  CHECK(plan.extent_free_points);
  REQUIRE(plan.zero_fill.has_value());
  REQUIRE(plan.zero_fill->checked_tile.has_value());
  // The input is zero-filled; the weights are checked for inf and NaN (0 * inf is NaN where
  // the reference has no term), through a flag in workgroup memory after the tiles.
  CHECK(plan.tiles[plan.zero_fill->zeroed_tile].load.side == LoadSide::kM);
  CHECK(plan.tiles[*plan.zero_fill->checked_tile].load.side == LoadSide::kN);
  std::vector<const loop::Expr*> conditions;
  step_conditions(*last_scheduled(s).kernel.body, false, conditions);
  CHECK(conditions.empty());
  REQUIRE(last_scheduled(s).arrays.size() == plan.tiles.size() + 1);
  CHECK(last_scheduled(s).arrays.back().dtype == DType::I32);

  // Integers: 0 * y is 0 for every y, nothing to check.
  LoweredProgram ints =
      lower_gpu(kPaddedConv, {Shape(DType::I32, {2, 9, 9, 64}), Shape(DType::I32, {3, 3, 64, 40})});
  GpuSchedule si = schedule_program(ints, schedule_target(), DispatchLimits{});
  REQUIRE(si.tiled.back().has_value());
  REQUIRE(si.tiled.back()->plan.zero_fill.has_value());
  CHECK_FALSE(si.tiled.back()->plan.zero_fill->checked_tile.has_value());
  CHECK(last_scheduled(si).arrays.size() == si.tiled.back()->plan.tiles.size());

  // A max aggregation adds a zero product where the reference has no term: its multiply-adds
  // keep the point's hoisted padding guard alone (one bool per m point), not a conjunction with
  // the n extent: a predicate per multiply-add halves the inner loop's rate on a GPU.
  LoweredProgram max_conv = lower_gpu(
      "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, H, W, CO] = >(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
      "}",
      {Shape(DType::F32, {2, 9, 9, 64}), Shape(DType::F32, {3, 3, 64, 40})});
  GpuSchedule m = schedule_program(max_conv, schedule_target(), DispatchLimits{});
  REQUIRE(m.tiled.back().has_value());
  CHECK(m.tiled.back()->plan.extent_free_points);
  CHECK_FALSE(m.tiled.back()->plan.zero_fill.has_value());
  conditions.clear();
  step_conditions(*last_scheduled(m).kernel.body, false, conditions);
  const TileChoice& c = m.tiled.back()->tiles;
  CHECK(conditions.size() == static_cast<size_t>(c.rm * c.rn));
  for (const loop::Expr* cond : conditions) CHECK(cond->kind == loop::ExprKind::kVar);

  // A load read from global memory at each point (its index reads both m and n) keeps the
  // extents in the condition: past them it would read outside its buffer.
  LoweredProgram sheared = lower_gpu(
      "function (I[N, H, W, CI], K[KH, KW, CI, CW]) -> (O) {\n"
      "  O[n, y, x, co : N, H, W, 40] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co + x]);\n"
      "}",
      {Shape(DType::F32, {2, 9, 9, 64}), Shape(DType::F32, {3, 3, 64, 48})});
  GpuSchedule g = schedule_program(sheared, schedule_target(), DispatchLimits{});
  REQUIRE(g.tiled.back().has_value());
  CHECK_FALSE(g.tiled.back()->plan.extent_free_points);
  CHECK_FALSE(g.tiled.back()->plan.zero_fill.has_value());
  conditions.clear();
  step_conditions(*last_scheduled(g).kernel.body, false, conditions);
  REQUIRE_FALSE(conditions.empty());
  for (const loop::Expr* cond : conditions) CHECK(cond->kind != loop::ExprKind::kVar);
}

TEST_CASE("schedule: a stem conv's short reduction loops merge into one staged k") {
  // ResNet's 7x7 stride-2 stem over 3 channels: k = ci alone would stage chunks of 3 terms
  // 49 times; merged with j and i (reduction_merge.h), one k of 7 * 7 * 3 = 147 terms, the
  // padding guards inside it, zero-filled.
  const char* stem =
      "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, (H + 1) / 2, (W + 1) / 2, CO] =\n"
      "      +(I[n, 2 * y + i - 3, 2 * x + j - 3, ci] * K[i, j, ci, co]);\n"
      "}";
  LoweredProgram p =
      lower_gpu(stem, {Shape(DType::F32, {2, 30, 30, 3}), Shape(DType::F32, {7, 7, 3, 16})});
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{});
  REQUIRE(s.tiled.back().has_value());
  const TiledSchedule& t = *s.tiled.back();
  CHECK(t.merged != nullptr);
  CHECK(t.plan.problem.k == 147);
  CHECK(t.plan.problem.serial == 1);
  CHECK(t.plan.zero_fill.has_value());
  std::vector<const loop::Expr*> conditions;
  step_conditions(*last_scheduled(s).kernel.body, false, conditions);
  CHECK(conditions.empty());
  // A max aggregation cannot zero-fill its guards: merged, they would be checked at every
  // point and k step, so its loops stay as lowered.
  LoweredProgram max_stem = lower_gpu(
      "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, (H + 1) / 2, (W + 1) / 2, CO] =\n"
      "      >(I[n, 2 * y + i - 3, 2 * x + j - 3, ci] * K[i, j, ci, co]);\n"
      "}",
      {Shape(DType::F32, {2, 30, 30, 3}), Shape(DType::F32, {7, 7, 3, 16})});
  REQUIRE(merge_short_reductions(max_stem.kernels.back()).has_value());
  GpuSchedule m = schedule_program(max_stem, schedule_target(), DispatchLimits{});
  const bool merged = m.tiled.back() && m.tiled.back()->merged != nullptr;
  CHECK_FALSE(merged);
}

TEST_CASE("schedule: a long row reduction is cooperative, a workgroup per row") {
  LoweredProgram p =
      lower_gpu("function (X[R, C]) -> (S) { S[i : R] = +(X[i, j]); }", {Shape(DType::F32, {6, 700})});
  GpuSchedule s = schedule_program(p, schedule_target(), DispatchLimits{});
  const GpuKernel& k = last_scheduled(s);
  CHECK_FALSE(s.tiled.back().has_value());
  REQUIRE(k.arrays.size() == 1);
  CHECK(k.arrays[0].elements == 256);  // the partials of 256 work-items (700 trips)
  CHECK(k.launch.grid == std::array<uint32_t, 3>{6, 1, 1});
  CHECK(k.launch.workgroup == std::array<uint32_t, 3>{256, 1, 1});
  // The walk and the partials' store, then a barrier after it and after each of the 8
  // halvings but the last (work-item 0 reads what it wrote itself).
  int barriers = 0;
  for (const auto& st : k.kernel.body->body) barriers += st->kind == loop::StmtKind::kBarrier;
  CHECK(barriers == 8);
}

TEST_CASE("schedule: short rows, shared loads and a bool max keep their kernels") {
  // 40 trips: below kMinCooperativeReduction, one work-item per row is as fast.
  LoweredProgram short_rows =
      lower_gpu("function (X[R, C]) -> (S) { S[i : R] = +(X[i, j]); }", {Shape(DType::F32, {6, 40})});
  GpuSchedule s = schedule_program(short_rows, schedule_target(), DispatchLimits{});
  const bool cooperative = s.kernels.back().has_value() && !s.kernels.back()->arrays.empty() &&
                           s.kernels.back()->arrays[0].name == "partials";
  CHECK_FALSE(cooperative);
  // A matmul's operands are shared between outputs: tiled, not cooperative.
  LoweredProgram mm = lower_gpu(kScheduleMatmulRelu, {Shape(DType::F32, {512, 256}),
                                                      Shape(DType::F32, {256, 384})});
  GpuSchedule t = schedule_program(mm, schedule_target(), DispatchLimits{});
  bool tiled = false;
  for (const auto& k : t.tiled) tiled = tiled || k.has_value();
  CHECK(tiled);
  // More rows than one dispatch dimension takes: not cooperative.
  LoweredProgram many =
      lower_gpu("function (X[R, C]) -> (S) { S[i : R] = +(X[i, j]); }", {Shape(DType::F32, {70, 64})});
  DispatchLimits few;
  few.max_groups = 64;
  CHECK_FALSE(
      schedule_reduction(many.kernels.back(), schedule_target(), few.max_groups).has_value());
  CHECK(schedule_reduction(many.kernels.back(), schedule_target(), 70).has_value());
}

}  // namespace
}  // namespace plaidml::jit::gpu
