// Short loop-IR builders for the scheduled-kernel writers (tiled_kernel.cc,
// reduction_kernel.cc): i64 index arithmetic that folds constants, comparisons and conjunctions,
// a loop's value at a position, and counted loops with an unroll hint.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jit/codegen/gpu/contraction_match.h"
#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/loop/loop_ir.h"
#include "jit/loop/rewrite.h"

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

using Bindings = std::map<std::string, ExprPtr>;

// The band loops before the m group, one workgroup per combination along grid dimension 2,
// innermost fastest: their values decoded from group_id(2).
inline Bindings uniform_band_values(const RegisterForm& form) {
  Bindings out;
  ExprPtr g2 = loop::var(group_id(2));
  for (size_t i = form.uniform_band_count(); i-- > 0;) {
    const loop::Stmt& band = *form.band[i];
    const int64_t trips = loop::trip_count(band);
    out[band.var] = value_of(band, index_op(ir::OpKind::Mod, g2, c(trips)));
    g2 = index_op(ir::OpKind::Div, g2, c(trips));
  }
  return out;
}

// A copy of `s` with its variables replaced by `bindings`; assignments to a local that the
// bindings rename (the accumulator, in an epilogue) go to the new name.
inline void retarget(loop::Stmt& s, const Bindings& bindings) {
  if (s.kind == loop::StmtKind::kAssign) {
    auto it = bindings.find(s.var);
    if (it != bindings.end() && it->second->kind == loop::ExprKind::kVar) s.var = it->second->name;
  }
  for (auto& child : s.body) retarget(*child, bindings);
}
inline StmtPtr rebind(const loop::Stmt& s, const Bindings& bindings) {
  StmtPtr out = loop::substitute(std::make_shared<loop::Stmt>(s), bindings);
  retarget(*out, bindings);
  return out;
}

// Binds the m group's variables to flat m position `m` (innermost fastest).
inline void bind_m(const RegisterForm& form, ExprPtr m, Bindings& b) {
  const std::vector<const loop::Stmt*> loops = form.m_loops();
  for (size_t i = loops.size(); i-- > 0;) {
    const loop::Stmt& band = *loops[i];
    if (i == 0) {  // the outermost takes the rest: below its trip count inside the extent
      b[band.var] = value_of(band, m);
      break;
    }
    const int64_t trips = loop::trip_count(band);
    b[band.var] = value_of(band, index_op(ir::OpKind::Mod, m, c(trips)));
    m = index_op(ir::OpKind::Div, m, c(trips));
  }
}

}  // namespace plaidml::jit::gpu::build
