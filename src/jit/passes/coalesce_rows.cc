#include "jit/passes/coalesce_rows.h"

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {
namespace {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

struct Pair {
  std::string a, b;
  int64_t b_extent = 0;
};

// Whether `index` sees a and b as the one index a * B + b (or sees neither).
bool index_ok(const Expr& index, const Pair& p) {
  if (!loop::mentions(index, p.a) && !loop::mentions(index, p.b)) return true;
  auto affine = loop::affine_of(index);
  return affine && affine->coeff(p.a) == p.b_extent * affine->coeff(p.b);
}

bool expr_ok(const Expr& e, const Pair& p);

// A load or store at `index`: index_ok, and a non-affine index (a gather's) uses a and b only as
// expr_ok allows.
bool access_ok(const Expr& index, const Pair& p) {
  return index_ok(index, p) && (loop::affine_of(index) || expr_ok(index, p));
}

// Every use of a or b in `e` is the index of a load that access_ok accepts.
bool expr_ok(const Expr& e, const Pair& p) {
  if (e.kind == ExprKind::kVar) return e.name != p.a && e.name != p.b;
  if (e.kind == ExprKind::kLoad) return access_ok(*e.args[0], p);
  for (const auto& arg : e.args) {
    if (!expr_ok(*arg, p)) return false;
  }
  return true;
}

bool stmt_ok(const Stmt& s, const Pair& p) {
  for (const auto& e : {s.lo, s.hi, s.cond, s.value}) {
    if (e && !expr_ok(*e, p)) return false;
  }
  if (s.kind == StmtKind::kStore && !access_ok(*s.index, p)) return false;
  for (const auto& b : s.body) {
    if (!stmt_ok(*b, p)) return false;
  }
  return true;
}

bool zero_based(const Stmt& s) {
  return s.kind == StmtKind::kFor && s.lo->is_int_const(0) && s.hi->is_const() && s.step == 1;
}

}  // namespace

loop::Kernel coalesce_rows(const loop::Kernel& kernel, const CpuTarget& target) {
  if (target.vector_bits == 0) return kernel;
  loop::Kernel out = kernel;
  out.body = loop::deep_copy(kernel.body);
  std::vector<const Stmt*> band = loop::find_band(out);
  if (band.size() < 2) return kernel;
  // The copy's statements are this function's own: editing them leaves `kernel` as it was.
  Stmt& outer = const_cast<Stmt&>(*band[band.size() - 2]);
  const Stmt& inner = *band.back();
  if (!zero_based(outer) || !zero_based(inner)) return kernel;
  Pair p{outer.var, inner.var, inner.hi->int_value};
  for (const auto& s : inner.body) {
    if (!stmt_ok(*s, p)) return kernel;
  }
  std::map<std::string, loop::ExprPtr> bindings = {{p.a, loop::int_const(0)}};
  std::vector<loop::StmtPtr> body;
  for (const auto& s : inner.body) body.push_back(loop::substitute(s, bindings));
  outer.var = p.b;
  outer.hi = loop::int_const(outer.hi->int_value * p.b_extent);
  outer.body = std::move(body);
  return out;
}

}  // namespace plaidml::jit::passes
