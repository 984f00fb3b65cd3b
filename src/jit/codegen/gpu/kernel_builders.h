// Short loop-IR builders for the scheduled-kernel writers (tiled_kernel.cc,
// reduction_kernel.cc): i64 index arithmetic that folds constants, comparisons and conjunctions,
// a loop's value at a position, and counted loops with an unroll hint.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::gpu::build {

using loop::ExprPtr;
using loop::StmtPtr;

inline ExprPtr c(int64_t v) { return loop::int_const(v); }
inline ExprPtr add(ExprPtr a, ExprPtr b) { return loop::idx_add(std::move(a), std::move(b)); }
inline ExprPtr mul(ExprPtr a, int64_t b) { return loop::idx_mul(std::move(a), b); }
inline ExprPtr index_op(ir::OpKind op, ExprPtr a, ExprPtr b) {
  return loop::op(op, DType::I64, {std::move(a), std::move(b)});
}
inline ExprPtr less(ExprPtr a, ExprPtr b) {
  return loop::op(ir::OpKind::Lt, DType::Bool, {std::move(a), std::move(b)});
}
// a && b, where a null `a` is true.
inline ExprPtr both(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  return loop::op(ir::OpKind::BitAnd, DType::Bool, {std::move(a), std::move(b)});
}
// lo + position * step of a loop of constant bounds.
inline ExprPtr value_of(const loop::Stmt& loop, ExprPtr position) {
  return add(c(loop.lo->int_value), mul(std::move(position), loop.step));
}

inline StmtPtr counted(const std::string& var, ExprPtr lo, ExprPtr hi, int64_t step,
                       std::vector<StmtPtr> body, int unroll = 0) {
  auto s = std::make_shared<loop::Stmt>();
  s->kind = loop::StmtKind::kFor;
  s->var = var;
  s->lo = std::move(lo);
  s->hi = std::move(hi);
  s->step = step;
  s->unroll = unroll;
  s->body = std::move(body);
  return s;
}

}  // namespace plaidml::jit::gpu::build
