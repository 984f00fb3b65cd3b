#include "jit/passes/simplify.h"

#include <map>
#include <optional>
#include <string>

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {

using ir::OpKind;
using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

namespace {

using Bindings = std::map<std::string, ExprPtr>;

bool both_i64_consts(const Expr& e) {
  return e.args.size() == 2 && e.args[0]->is_const() && e.args[1]->is_const() &&
         e.args[0]->dtype == DType::I64 && e.args[1]->dtype == DType::I64;
}

// Folds i64 arithmetic and comparisons of two constants, and bool logic with a constant side;
// wider folding is LLVM's job, this keeps the printed IR and the trip counts readable.
ExprPtr fold_op(const ExprPtr& e) {
  const Expr& x = *e;
  if (x.kind != ExprKind::kOp) return e;
  if (x.dtype == DType::Bool && x.op == OpKind::BitAnd) {
    for (int k = 0; k < 2; ++k) {
      const Expr& side = *x.args[k];
      if (side.is_const()) return side.int_value != 0 ? x.args[1 - k] : x.args[k];
    }
    return e;
  }
  if (x.op == OpKind::Add && x.dtype == DType::I64) return loop::idx_add(x.args[0], x.args[1]);
  if (x.op == OpKind::Mul && x.dtype == DType::I64) return loop::idx_mul(x.args[0], x.args[1]);
  if (!both_i64_consts(x)) return e;
  int64_t a = x.args[0]->int_value, b = x.args[1]->int_value;
  // Only a few rows of the op table are folded, so this is an if-chain rather than a switch.
  auto boolean = [](bool v) { return loop::int_const(v ? 1 : 0, DType::Bool); };
  if (x.op == OpKind::Sub) return loop::int_const(loop::wrapping_sub(a, b));
  if (x.op == OpKind::Div && b > 0) return loop::int_const(a / b);
  if (x.op == OpKind::Mod && b > 0) return loop::int_const(a % b);
  if (x.op == OpKind::Eq) return boolean(a == b);
  if (x.op == OpKind::Ne) return boolean(a != b);
  if (x.op == OpKind::Lt) return boolean(a < b);
  if (x.op == OpKind::Gt) return boolean(a > b);
  if (x.op == OpKind::Le) return boolean(a <= b);
  if (x.op == OpKind::Ge) return boolean(a >= b);
  if (x.op == OpKind::Max) return loop::int_const(a > b ? a : b);
  if (x.op == OpKind::Min) return loop::int_const(a < b ? a : b);
  return e;
}

ExprPtr rewrite(const ExprPtr& e, const Bindings& bindings) {
  return loop::substitute(e, bindings, fold_op);
}

void simplify_body(const std::vector<StmtPtr>& in, Bindings& bindings, std::vector<StmtPtr>& out);

std::optional<int64_t> constant_trip_count(const Stmt& s) {
  if (!s.lo->is_const() || !s.hi->is_const()) return std::nullopt;
  return loop::trip_count(s);
}

void simplify_stmt(const StmtPtr& s, Bindings& bindings, std::vector<StmtPtr>& out) {
  auto copy = std::make_shared<Stmt>(*s);
  for (ExprPtr* e : {&copy->lo, &copy->hi, &copy->cond, &copy->index, &copy->value}) {
    if (*e) *e = rewrite(*e, bindings);
  }
  switch (s->kind) {
    case StmtKind::kFor: {
      auto trips = constant_trip_count(*copy);
      if (trips && *trips == 0) return;
      if (trips && *trips == 1) {
        Bindings inner = bindings;
        inner[copy->var] = copy->lo;
        simplify_body(copy->body, inner, out);
        return;
      }
      break;
    }
    case StmtKind::kIf:
      if (copy->cond->is_const()) {
        if (copy->cond->int_value != 0) simplify_body(copy->body, bindings, out);
        return;
      }
      break;
    case StmtKind::kBlock:
    case StmtKind::kStore:
    case StmtKind::kPrefetch:
    case StmtKind::kBarrier:
    case StmtKind::kMatrix:
    case StmtKind::kDeclare:
    case StmtKind::kAssign: break;
  }
  if (!copy->body.empty()) {
    std::vector<StmtPtr> body;
    simplify_body(copy->body, bindings, body);
    copy->body = std::move(body);
    if (copy->body.empty() && copy->kind != StmtKind::kBlock) return;
  }
  out.push_back(copy);
}

void simplify_body(const std::vector<StmtPtr>& in, Bindings& bindings, std::vector<StmtPtr>& out) {
  for (const auto& s : in) simplify_stmt(s, bindings, out);
}

}  // namespace

ExprPtr fold(const ExprPtr& expr) { return rewrite(expr, {}); }

loop::Kernel simplify(const loop::Kernel& kernel) {
  loop::Kernel out = kernel;
  Bindings bindings;
  std::vector<StmtPtr> body;
  simplify_body(kernel.body->body, bindings, body);
  out.body = loop::block(std::move(body));
  return out;
}

}  // namespace plaidml::jit::passes
