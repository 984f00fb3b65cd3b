#include "jit/passes/split_reduction.h"

#include <fmt/format.h>

#include <set>

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {
namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

// The accumulator T of `update` (T = agg(T, v)) as an expression, or nullptr when the statement
// is not a float max/min update that the loop variable j leaves in place.
ExprPtr accumulator(const Stmt& update, const std::string& j) {
  if (!loop::updates_itself(update)) return nullptr;
  const Expr& v = *update.value;
  if ((v.op != ir::OpKind::Max && v.op != ir::OpKind::Min) || v.args.size() != 2 || v.lanes != 1 ||
      (v.dtype != DType::F32 && v.dtype != DType::F64)) {
    return nullptr;
  }
  const Expr& term = *v.args[1];
  if (update.kind == StmtKind::kAssign) {
    return loop::mentions(term, update.var) ? nullptr : v.args[0];
  }
  if (loop::mentions(*update.index, j)) return nullptr;
  std::set<int> reads;
  loop::collect_loads(term, reads);
  return reads.count(update.slot) ? nullptr : v.args[0];  // v must not read T's buffer
}

// for j in [lo, hi) { T = agg(T, v) } as eight chains (split_reduction.h), or nullptr.
StmtPtr split(const Stmt& loop, int& counter) {
  if (loop.kind != StmtKind::kFor || loop.parallel || loop.independent || loop.step != 1 ||
      !loop.lo->is_const() || !loop.hi->is_const() || loop.body.size() != 1) {
    return nullptr;
  }
  const Stmt& update = *loop.body[0];
  ExprPtr acc = accumulator(update, loop.var);
  int64_t lo = loop.lo->int_value, hi = loop.hi->int_value;
  int64_t whole = (hi - lo) / kReductionChains * kReductionChains;
  if (!acc || whole < 2 * kReductionChains) return nullptr;
  const Expr& v = *update.value;
  ir::OpKind agg = v.op;
  std::string base = fmt::format("$chain{}_", counter++);
  auto chain = [&](int c) { return loop::var(base + std::to_string(c), v.dtype); };
  std::vector<StmtPtr> out;
  for (int c = 0; c < kReductionChains; ++c) out.push_back(loop::declare(chain(c)->name, acc));
  std::vector<StmtPtr> body;
  for (int c = 0; c < kReductionChains; ++c) {
    ExprPtr at = loop::idx_add(loop::var(loop.var), loop::int_const(c));
    ExprPtr term = loop::substitute(v.args[1], {{loop.var, at}});
    body.push_back(loop::assign(chain(c)->name, loop::op(agg, v.dtype, {chain(c), term})));
  }
  auto main = loop::for_loop(loop.var, lo, lo + whole, std::move(body));
  main->step = kReductionChains;
  out.push_back(main);
  if (whole < hi - lo) {
    out.push_back(loop::for_loop(
        loop.var, lo + whole, hi,
        {loop::assign(chain(0)->name, loop::op(agg, v.dtype, {chain(0), v.args[1]}))}));
  }
  // Pairwise: ((0 1) (2 3)) ((4 5) (6 7)).
  std::vector<ExprPtr> level;
  for (int c = 0; c < kReductionChains; ++c) level.push_back(chain(c));
  while (level.size() > 1) {
    std::vector<ExprPtr> next;
    for (size_t k = 0; k + 1 < level.size(); k += 2) {
      next.push_back(loop::op(agg, v.dtype, {level[k], level[k + 1]}));
    }
    level = std::move(next);
  }
  auto result = std::make_shared<Stmt>(update);
  result->value = level[0];
  out.push_back(result);
  return loop::block(std::move(out));
}

void rewrite(Stmt& s, int& counter) {
  for (auto& child : s.body) {
    if (StmtPtr replaced = split(*child, counter)) {
      child = replaced;
    } else {
      rewrite(*child, counter);
    }
  }
}

}  // namespace

loop::Kernel split_reduction(const loop::Kernel& kernel, const CpuTarget& target) {
  if (target.vector_bits == 0) return kernel;
  loop::Kernel out = kernel;
  out.body = loop::deep_copy(kernel.body);
  int counter = 0;
  rewrite(*out.body, counter);
  return counter == 0 ? kernel : out;
}

}  // namespace plaidml::jit::passes
