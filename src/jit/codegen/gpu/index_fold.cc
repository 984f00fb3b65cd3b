// Folding of decoded-and-rebuilt index arithmetic (index_fold.h).
#include "jit/codegen/gpu/index_fold.h"

#include <memory>
#include <utility>
#include <vector>

#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {
namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;

bool is_index(const Expr& e) { return e.dtype == DType::I64 && e.lanes == 1; }
bool is_index_op(const Expr& e, ir::OpKind op) {
  return e.kind == ExprKind::kOp && e.op == op && is_index(e) && e.args.size() == 2;
}
const Expr* int_operand(const Expr& e, size_t i) {
  const Expr& a = *e.args[i];
  return a.kind == ExprKind::kConst ? &a : nullptr;
}

// sum(coef * atom) + constant: an i64 sum with the products by constants taken apart.
struct Sum {
  struct Term {
    int64_t coef;
    ExprPtr atom;
  };
  std::vector<Term> terms;
  int64_t constant = 0;

  void add(const ExprPtr& e, int64_t scale) {
    if (e->kind == ExprKind::kConst) {
      constant += scale * e->int_value;
    } else if (is_index_op(*e, ir::OpKind::Add)) {
      add(e->args[0], scale);
      add(e->args[1], scale);
    } else if (is_index_op(*e, ir::OpKind::Sub)) {
      add(e->args[0], scale);
      add(e->args[1], -scale);
    } else if (is_index_op(*e, ir::OpKind::Mul) && int_operand(*e, 1)) {
      add(e->args[0], scale * int_operand(*e, 1)->int_value);
    } else if (is_index_op(*e, ir::OpKind::Mul) && int_operand(*e, 0)) {
      add(e->args[1], scale * int_operand(*e, 0)->int_value);
    } else {
      add_term(scale, e);
    }
  }
  void add_term(int64_t coef, const ExprPtr& atom) {
    for (Term& t : terms) {
      if (loop::same_expr(*t.atom, *atom)) {
        t.coef += coef;
        return;
      }
    }
    terms.push_back({coef, atom});
  }
  // One (a / c) * (c * s) + (a % c) * s pair replaced by a * s; false when there is none.
  bool merge_one() {
    for (size_t i = 0; i < terms.size(); ++i) {
      const Expr& div = *terms[i].atom;
      if (terms[i].coef == 0 || !is_index_op(div, ir::OpKind::Div) || !int_operand(div, 1))
        continue;
      const int64_t c = int_operand(div, 1)->int_value;
      if (c <= 0) continue;
      for (size_t j = 0; j < terms.size(); ++j) {
        const Expr& mod = *terms[j].atom;
        if (!is_index_op(mod, ir::OpKind::Mod) || !int_operand(mod, 1) ||
            int_operand(mod, 1)->int_value != c || terms[i].coef != terms[j].coef * c ||
            !loop::same_expr(*div.args[0], *mod.args[0])) {
          continue;
        }
        const int64_t s = terms[j].coef;
        const ExprPtr a = div.args[0];
        terms[i].coef = 0;
        terms[j].coef = 0;
        add(a, s);
        return true;
      }
    }
    return false;
  }
  ExprPtr rebuild() const {
    ExprPtr out = loop::int_const(0);
    for (const Term& t : terms) {
      if (t.coef != 0) out = loop::idx_add(out, loop::idx_mul(t.atom, t.coef));
    }
    return loop::idx_add(out, loop::int_const(constant));
  }
};

ExprPtr fold_sum(const ExprPtr& e) {
  if (!is_index_op(*e, ir::OpKind::Add) && !is_index_op(*e, ir::OpKind::Sub)) return e;
  Sum sum;
  sum.add(e, 1);
  bool merged = false;
  while (sum.merge_one()) merged = true;
  return merged ? sum.rebuild() : e;
}

ExprPtr fold_or_null(const ExprPtr& e) { return e ? fold_index(e) : e; }

void fold_operand(loop::MatrixOperand& o) {
  o.base = fold_or_null(o.base);
  o.row0 = fold_or_null(o.row0);
  o.col0 = fold_or_null(o.col0);
}

void fold_stmt(loop::Stmt& s) {
  for (ExprPtr* e : {&s.lo, &s.hi, &s.cond, &s.index, &s.value}) *e = fold_or_null(*e);
  if (s.matrix) {
    auto op = std::make_shared<loop::MatrixOp>(*s.matrix);
    fold_operand(op->a);
    fold_operand(op->b);
    op->thread = fold_or_null(op->thread);
    op->c_at = fold_or_null(op->c_at);
    s.matrix = std::move(op);
  }
  for (const loop::StmtPtr& child : s.body) fold_stmt(*child);
}

}  // namespace

ExprPtr fold_index(const ExprPtr& e) { return loop::substitute(e, {}, fold_sum); }

void fold_indices(GpuKernel& kernel) {
  kernel.kernel.body = loop::deep_copy(kernel.kernel.body);
  fold_stmt(*kernel.kernel.body);
}

}  // namespace plaidml::jit::gpu
