#include "jit/passes/row_form_match.h"

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {

using ir::OpKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;

bool const_bounds(const Stmt& s) {
  return s.kind == StmtKind::kFor && s.lo->is_const() && s.hi->is_const() && s.step == 1;
}

namespace {

std::optional<RowStore> row_store(const Stmt& s) {
  if (!const_bounds(s) || s.body.size() != 1 || s.body[0]->kind != StmtKind::kStore) {
    return std::nullopt;
  }
  return RowStore{&s, s.body[0].get()};
}

bool same_row(const RowStore& a, const Match& m) {
  return a.loop->var == m.j && a.loop->lo->int_value == m.j_lo && a.loop->hi->int_value == m.j_hi &&
         a.store->slot == m.slot && loop::same_expr(*a.store->index, *m.index);
}

// The innermost band loop of the kernel: the parallel loop, then independent loops with
// constant bounds that are each the only statement of the previous one's body.
Stmt* band_bottom(loop::Kernel& kernel) {
  Stmt* s = nullptr;
  for (auto& top : kernel.body->body) {
    if (top->kind == StmtKind::kFor && top->parallel) s = top.get();
  }
  while (s && s->body.size() == 1 && s->body[0]->kind == StmtKind::kFor &&
         s->body[0]->independent && const_bounds(*s->body[0])) {
    s = s->body[0].get();
  }
  return s && const_bounds(*s) ? s : nullptr;
}

// The accumulation "for j { S[o] = agg(S[o], v) }" at the end of the chain.
bool match_accumulation(const Stmt& s, Match& m) {
  auto rs = row_store(s);
  if (!rs) return false;
  const Stmt& st = *rs->store;
  const ExprPtr& value = st.value;
  if (value->kind != loop::ExprKind::kOp || value->args.size() != 2) return false;
  OpKind op = value->op;
  if (op != OpKind::Add && op != OpKind::Mul && op != OpKind::Max && op != OpKind::Min) {
    return false;
  }
  const ExprPtr& old = value->args[0];
  if (old->kind != loop::ExprKind::kLoad || old->slot != st.slot ||
      !loop::same_expr(*old->args[0], *st.index)) {
    return false;
  }
  m.j = s.var;
  m.j_lo = s.lo->int_value;
  m.j_hi = s.hi->int_value;
  m.slot = st.slot;
  m.dtype = value->dtype;
  m.index = st.index;
  m.agg = op;
  m.value = value->args[1];
  return m.dtype == DType::F32 || m.dtype == DType::F64;
}

bool match_chain(const Stmt& root, Match& m) {
  const Stmt* s = &root;
  while (true) {
    if (s->kind == StmtKind::kFor && match_accumulation(*s, m)) return true;
    if ((s->kind != StmtKind::kFor && s->kind != StmtKind::kIf) || s->body.size() != 1) {
      return false;
    }
    m.chain.push_back(s);
    s = s->body[0].get();
  }
}

// Reduction loops and guards must not depend on j or on the row variable in ways the tile
// cannot honour: loop bounds never mention x or j, guards never mention j.
bool chain_ok(const Match& m) {
  for (const Stmt* s : m.chain) {
    if (s->kind == StmtKind::kFor) {
      for (const auto& e : {s->lo, s->hi}) {
        if (loop::mentions(*e, m.x) || loop::mentions(*e, m.j)) return false;
      }
    } else if (loop::mentions(*s->cond, m.j)) {
      return false;
    }
  }
  return true;
}

bool index_ok(const Match& m) {
  auto a = loop::affine_of(*m.index);
  if (!a || a->coeff(m.j) != 1 || a->coeff(m.x) == 0) return false;
  for (const Stmt* s : m.chain) {
    if (s->kind == StmtKind::kFor && a->coeff(s->var) != 0) return false;
  }
  return true;
}

}  // namespace

std::optional<Match> match_row_form(loop::Kernel& kernel) {
  Match m;
  m.x_loop = band_bottom(kernel);
  if (!m.x_loop) return std::nullopt;
  m.x = m.x_loop->var;
  m.x_lo = m.x_loop->lo->int_value;
  m.x_hi = m.x_loop->hi->int_value;
  const auto& body = m.x_loop->body;
  size_t first = 0;
  if (body.size() >= 2 && row_store(*body[0])) {
    m.init = row_store(*body[0]);
    first = 1;
  }
  if (body.size() <= first || body.size() > first + 2) return std::nullopt;
  if (!match_chain(*body[first], m) || !chain_ok(m) || !index_ok(m)) return std::nullopt;
  if (m.init && !same_row(*m.init, m)) return std::nullopt;
  if (body.size() == first + 2) {
    m.finish = row_store(*body[first + 1]);
    if (!m.finish || !same_row(*m.finish, m)) return std::nullopt;
  }
  return m;
}

int64_t reduction_points(const Match& m) {
  int64_t points = 1;
  for (const Stmt* s : m.chain) {
    if (s->kind != StmtKind::kFor) continue;
    if (!const_bounds(*s)) return 0;
    points *= loop::trip_count(*s);
  }
  return points;
}

}  // namespace plaidml::jit::passes
