#include "jit/codegen/gpu/index_range.h"

#include <algorithm>
#include <cmath>

namespace plaidml::jit::gpu {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

constexpr double kIntMin = -2147483648.0;
constexpr double kIntMax = 2147483647.0;

bool in_int32(double lo, double hi) { return lo >= kIntMin && hi <= kIntMax; }

// The range of a binary op on ranges a and b (nullopt for ops the analysis does not know).
std::optional<IndexRange> binary(ir::OpKind op, IndexRange a, IndexRange b) {
  switch (op) {
    case ir::OpKind::Add: return IndexRange{a.lo + b.lo, a.hi + b.hi};
    case ir::OpKind::Sub: return IndexRange{a.lo - b.hi, a.hi - b.lo};
    case ir::OpKind::Mul: {
      double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      return IndexRange{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    }
    case ir::OpKind::Min: return IndexRange{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case ir::OpKind::Max: return IndexRange{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    default: return std::nullopt;
  }
}

// Division and remainder by a positive constant c, truncating as the loop IR does.
std::optional<IndexRange> by_constant(ir::OpKind op, IndexRange a, double c) {
  if (op == ir::OpKind::Div) return IndexRange{std::trunc(a.lo / c), std::trunc(a.hi / c)};
  if (op == ir::OpKind::Mod) return IndexRange{a.lo < 0 ? -(c - 1) : 0, a.hi > 0 ? c - 1 : 0};
  return std::nullopt;
}

std::optional<IndexRange> known(const std::optional<IndexRange>& r) {
  if (r && !in_int32(r->lo, r->hi)) return std::nullopt;
  return r;
}

}  // namespace

IndexRanges::IndexRanges(const LoweredProgram& program,
                         const std::vector<const GpuKernel*>& scheduled) {
  for (const auto& slot : program.slots) {
    if (slot.shape.elements() > static_cast<int64_t>(kIntMax)) slots_fit_ = false;
  }
  for (const auto& k : program.kernels) find_assigned(*k.body);
  for (const GpuKernel* k : scheduled) find_assigned(*k->kernel.body);
  for (const auto& k : program.kernels) scan(*k.body);
  for (const GpuKernel* k : scheduled) {
    for (int d = 0; d < 3; ++d) {
      add_loop(local_id(d), IndexRange{0, double(k->launch.workgroup[d]) - 1});
      add_loop(group_id(d), IndexRange{0, double(k->launch.grid[d]) - 1});
    }
    if (k->subgroups > 0) {
      add_loop(subgroup_id(), IndexRange{0, double(k->subgroups) - 1});
      add_loop(subgroup_lane(), IndexRange{0, double(k->subgroup_size) - 1});
    }
    for (const auto& array : k->arrays) {
      if (array.elements > static_cast<int64_t>(kIntMax)) slots_fit_ = false;
    }
    scan(*k->kernel.body);
  }
}

std::optional<IndexRange> IndexRanges::range(const Expr& e) const {
  if (e.dtype != DType::I64) return std::nullopt;
  switch (e.kind) {
    case ExprKind::kConst:
      return known(IndexRange{double(e.int_value), double(e.int_value)});
    case ExprKind::kVar: {  // a loop variable or an index local
      auto it = loops_.find(e.name);
      if (it == loops_.end() || is_local(e.name)) return std::nullopt;
      return known(it->second);
    }
    case ExprKind::kOp: break;
    default: return std::nullopt;
  }
  if (e.op == ir::OpKind::Select) {  // either value, whatever the condition
    std::optional<IndexRange> a = range(*e.args[1]), b = range(*e.args[2]);
    if (!a || !b) return std::nullopt;
    return IndexRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }
  bool unary = e.op == ir::OpKind::Neg;
  if (!unary && e.args.size() != 2) return std::nullopt;
  std::optional<IndexRange> a = range(*e.args[0]);
  if (!a) return std::nullopt;
  if (unary) return known(IndexRange{-a->hi, -a->lo});
  const Expr& rhs = *e.args[1];
  if (rhs.kind == ExprKind::kConst && rhs.int_value > 0) {
    if (auto r = by_constant(e.op, *a, double(rhs.int_value))) return known(r);
  }
  std::optional<IndexRange> b = range(rhs);
  if (!b) return std::nullopt;
  return known(binary(e.op, *a, *b));
}

void IndexRanges::add_loop(const std::string& name, std::optional<IndexRange> r) {
  auto [it, fresh] = loops_.emplace(name, r);
  if (fresh) return;
  if (it->second && r) {
    it->second = IndexRange{std::min(it->second->lo, r->lo), std::max(it->second->hi, r->hi)};
  } else {
    it->second = std::nullopt;
  }
}

void IndexRanges::find_assigned(const Stmt& s) {
  if (s.kind == StmtKind::kAssign) assigned_.insert(s.var);
  for (const auto& b : s.body) find_assigned(*b);
}

// Statements in program order: a loop's bounds (and an index local's value) only name enclosing
// loops and earlier locals, whose ranges are known by then.
void IndexRanges::scan(const Stmt& s) {
  if (s.kind == StmtKind::kDeclare) {
    std::optional<IndexRange> r;
    if (s.value->dtype == DType::I64 && assigned_.count(s.var) == 0) r = range(*s.value);
    if (r) {
      index_locals_.insert(s.var);
      add_loop(s.var, r);
    } else {
      locals_.insert(s.var);
    }
  }
  if (s.kind == StmtKind::kFor) {
    std::optional<IndexRange> lo = range(*s.lo), hi = range(*s.hi), r;
    if (lo && hi) r = IndexRange{lo->lo, std::max(lo->lo, hi->hi - 1)};
    // The variable steps once past its last value before the loop test fails.
    if (!r || !in_int32(r->lo, r->hi + double(s.step))) bounds_fit_ = false;
    add_loop(s.var, r);
  }
  for (const auto& b : s.body) scan(*b);
}

}  // namespace plaidml::jit::gpu
