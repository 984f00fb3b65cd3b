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
  // A single row (as_single_row) does not depend on its row variable.
  if (!a || a->coeff(m.j) != 1 || (a->coeff(m.x) == 0 && m.x_hi - m.x_lo != 1)) return false;
  for (const Stmt* s : m.chain) {
    if (s->kind == StmtKind::kFor && a->coeff(s->var) != 0) return false;
  }
  return true;
}

// `s` with every loop over `j` of bounds [jb * block, min(jb * block + block, n)) running over
// [0, n); false when a loop over j has other bounds.
bool unblock_columns(Stmt& s, const std::string& j, const std::string& jb) {
  if (s.kind == StmtKind::kFor && s.var == j) {
    auto lo = loop::affine_of(*s.lo);
    const loop::Expr& hi = *s.hi;
    if (!lo || lo->constant != 0 || lo->coeffs.size() != 1 || lo->coeff(jb) <= 0) return false;
    if (hi.kind != loop::ExprKind::kOp || hi.op != OpKind::Min || !hi.args[1]->is_const()) {
      return false;
    }
    auto end = loop::affine_of(*hi.args[0]);
    if (!end || end->coeff(jb) != lo->coeff(jb) || end->constant != lo->coeff(jb)) return false;
    s.lo = loop::int_const(0);
    s.hi = hi.args[1];
  }
  for (auto& b : s.body) {
    if (!unblock_columns(*b, j, jb)) return false;
  }
  return true;
}

}  // namespace

std::optional<loop::Kernel> as_single_row(const loop::Kernel& kernel) {
  const auto& top = kernel.body->body;
  loop::Kernel out = kernel;
  out.body = loop::deep_copy(kernel.body);
  std::vector<loop::StmtPtr> row_body;
  if (top.size() == 1 && top[0]->kind == StmtKind::kFor && top[0]->parallel) {
    const Stmt& blocks = *out.body->body[0];
    const std::string& jb = blocks.var;
    constexpr std::string_view kSuffix = "$blk";
    if (jb.size() <= kSuffix.size() || jb.substr(jb.size() - kSuffix.size()) != kSuffix ||
        !const_bounds(blocks) || blocks.lo->int_value != 0) {
      return std::nullopt;
    }
    std::string j = jb.substr(0, jb.size() - kSuffix.size());
    for (const auto& s : blocks.body) {
      // Unblocked, nothing may still refer to the block variable the loop defined.
      if (!unblock_columns(*s, j, jb) || loop::mentions(*s, jb)) return std::nullopt;
    }
    row_body = blocks.body;
  } else {
    for (const auto& s : top) {
      if (s->kind == StmtKind::kFor && s->parallel) return std::nullopt;
    }
    row_body = out.body->body;
  }
  out.body->body = {loop::for_loop("$row", 0, 1, std::move(row_body), /*parallel=*/true)};
  return out;
}

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
