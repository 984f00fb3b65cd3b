// The folding of decoded-and-rebuilt index arithmetic (jit/codegen/gpu/index_fold.h): the
// folded expression has the value of the original at every point (checked by evaluating both,
// negative values included), and loses the divisions it can lose. Also the index ranges
// (jit/codegen/gpu/index_range.h) of the locals that hold decoded positions.
#include "jit/codegen/gpu/index_fold.h"

#include <doctest/doctest.h>

#include <string>

#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/gpu/index_range.h"
#include "jit/gpu_lowering.h"
#include "jit/loop/printer.h"
#include "jit/loop/rewrite.h"
#include "jit/passes/simplify.h"

namespace plaidml::jit::gpu {
namespace {

using loop::ExprPtr;

ExprPtr v(const char* name) { return loop::var(name); }
ExprPtr k(int64_t value) { return loop::int_const(value); }
ExprPtr add(ExprPtr a, ExprPtr b) { return loop::op(ir::OpKind::Add, DType::I64, {a, b}); }
ExprPtr mul(ExprPtr a, int64_t c) { return loop::op(ir::OpKind::Mul, DType::I64, {a, k(c)}); }
ExprPtr div(ExprPtr a, int64_t c) { return loop::op(ir::OpKind::Div, DType::I64, {a, k(c)}); }
ExprPtr mod(ExprPtr a, int64_t c) { return loop::op(ir::OpKind::Mod, DType::I64, {a, k(c)}); }

int64_t value_at(const ExprPtr& e, int64_t m, int64_t t) {
  ExprPtr folded = passes::fold(loop::substitute(e, {{"m", k(m)}, {"t", k(t)}}));
  REQUIRE(folded->kind == loop::ExprKind::kConst);
  return folded->int_value;
}

bool has_op(const loop::Expr& e, ir::OpKind op) {
  if (e.kind == loop::ExprKind::kOp && e.op == op) return true;
  for (const ExprPtr& a : e.args) {
    if (has_op(*a, op)) return true;
  }
  return false;
}

// A 1x1 convolution's input row, NHWC 14 x 14 x 256, from the flat m position:
// n * 50176 + y * 3584 + x * 256 with n = m / 14 / 14, y = m / 14 % 14, x = m % 14.
ExprPtr conv_row(ExprPtr m) {
  return add(add(mul(div(div(m, 14), 14), 50176), mul(mod(div(m, 14), 14), 3584)),
             mul(mod(m, 14), 256));
}

TEST_CASE("index fold: contiguous decoded dims become one product, with the same values") {
  ExprPtr e = add(conv_row(add(mul(v("t"), 128), v("m"))), k(5));
  ExprPtr f = fold_index(e);
  CHECK_FALSE(has_op(*f, ir::OpKind::Div));
  CHECK_FALSE(has_op(*f, ir::OpKind::Mod));
  for (int64_t m = -300; m <= 300; m += 7) {
    for (int64_t t : {-3, 0, 2}) CHECK(value_at(f, m, t) == value_at(e, m, t));
  }
  CHECK(value_at(f, 1000, 1) == (1000 + 128) * 256 + 5);
}

TEST_CASE("index fold: pairs that do not rebuild their operand stay as written") {
  // Strides that are not the next dim's extent times its stride (a padded row), a different
  // divisor, and different operands: nothing to fold.
  for (ExprPtr e : {add(mul(div(v("m"), 14), 3600), mul(mod(v("m"), 14), 256)),
                    add(mul(div(v("m"), 7), 3584), mul(mod(v("m"), 14), 256)),
                    add(mul(div(v("m"), 14), 3584), mul(mod(v("t"), 14), 256))}) {
    ExprPtr f = fold_index(e);
    CHECK(loop::to_string(*f) == loop::to_string(*e));
  }
}

TEST_CASE("index fold: a scheduled 1x1 convolution reads its input without divisions") {
  LoweredProgram p = testing::lower_gpu(
      "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, 14, 14, CO] = +(I[n, y, x, ci] * K[i, j, ci, co]);\n"
      "}",
      {Shape(DType::F32, {32, 14, 14, 256}), Shape(DType::F32, {1, 1, 256, 1024})});
  GpuTarget t;
  t.max_workgroup_size = 1024;
  t.local_memory_bytes = 49152;
  t.compute_units = 132;
  GpuSchedule s = schedule_program(p, t, DispatchLimits{});
  REQUIRE(s.kernels.size() == 1);
  REQUIRE(s.tiled[0].has_value());
  std::string text = loop::to_string(s.kernels[0]->kernel);
  CHECK(text.find("/ 14") == std::string::npos);
  CHECK(text.find("% 14") == std::string::npos);
}

}  // namespace
}  // namespace plaidml::jit::gpu

namespace plaidml::jit::gpu {
namespace {

// A scheduled kernel over a 4 x 64 launch whose body is `stmts`.
GpuKernel kernel_of(std::vector<loop::StmtPtr> stmts) {
  GpuKernel k;
  k.kernel.name = "k";
  k.kernel.body = loop::block(std::move(stmts));
  k.launch.grid = {4, 1, 1};
  k.launch.workgroup = {64, 1, 1};
  return k;
}

TEST_CASE("index ranges: a local declared once from an index of known range is an index") {
  // position = group * 64 + local decoded as y = position / 11 % 9: 0 .. 8.
  ExprPtr position = loop::op(ir::OpKind::Add, DType::I64,
                              {loop::idx_mul(loop::var(group_id(0)), 64), loop::var(local_id(0))});
  ExprPtr y = mod(div(position, 11), 9);
  GpuKernel kernel =
      kernel_of({loop::declare("@y", y), loop::declare("@data", loop::load(0, DType::I64, k(0))),
                 loop::declare("@sum", k(0)), loop::assign("@sum", v("@y"))});
  LoweredProgram program;
  program.slots.push_back({});
  IndexRanges ranges(program, {&kernel});
  CHECK(ranges.is_index_local("@y"));
  auto r = ranges.range(*loop::op(ir::OpKind::Add, DType::I64, {v("@y"), k(1)}));
  REQUIRE(r.has_value());
  CHECK(r->lo == 1);  // y + 1
  CHECK(r->hi == 9);
  // A local of a loaded value, or one assigned again, holds data: no range.
  CHECK_FALSE(ranges.is_index_local("@data"));
  CHECK(ranges.is_local("@data"));
  CHECK_FALSE(ranges.is_index_local("@sum"));
  CHECK_FALSE(ranges.range(*v("@sum")).has_value());
}

}  // namespace
}  // namespace plaidml::jit::gpu
