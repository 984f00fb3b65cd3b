#include "jit/loop/rewrite.h"

namespace plaidml::jit::loop {
namespace {

AffineIndex scaled(AffineIndex a, int64_t k) {
  for (auto& [name, c] : a.coeffs) c *= k;
  a.constant *= k;
  return a;
}

AffineIndex combined(AffineIndex a, const AffineIndex& b, int64_t sign) {
  for (const auto& [name, c] : b.coeffs) a.coeffs[name] += sign * c;
  a.constant += sign * b.constant;
  return a;
}

}  // namespace

std::optional<AffineIndex> affine_of(const Expr& e) {
  if (e.dtype != DType::I64 || e.lanes != 1) return std::nullopt;
  switch (e.kind) {
    case ExprKind::kConst:
      return AffineIndex{{}, e.int_value};
    case ExprKind::kVar:
      return AffineIndex{{{e.name, 1}}, 0};
    case ExprKind::kOp:
      break;
    case ExprKind::kLoad:
    case ExprKind::kCast:
      return std::nullopt;
  }
  if (e.op == ir::OpKind::Neg) {
    auto a = affine_of(*e.args[0]);
    return a ? std::optional(scaled(*a, -1)) : std::nullopt;
  }
  if (e.op != ir::OpKind::Add && e.op != ir::OpKind::Sub && e.op != ir::OpKind::Mul) {
    return std::nullopt;
  }
  auto a = affine_of(*e.args[0]);
  auto b = affine_of(*e.args[1]);
  if (!a || !b) return std::nullopt;
  if (e.op == ir::OpKind::Add) return combined(*a, *b, 1);
  if (e.op == ir::OpKind::Sub) return combined(*a, *b, -1);
  if (a->coeffs.empty()) return scaled(*b, a->constant);
  if (b->coeffs.empty()) return scaled(*a, b->constant);
  return std::nullopt;  // a product of variables
}

void collect_loads(const Expr& e, std::set<int>& reads) {
  if (e.kind == ExprKind::kLoad) reads.insert(e.slot);
  for (const auto& a : e.args) collect_loads(*a, reads);
}

bool updates_itself(const Stmt& s) {
  if ((s.kind != StmtKind::kStore && s.kind != StmtKind::kAssign) || !s.value ||
      s.value->kind != ExprKind::kOp || s.value->args.empty()) {
    return false;
  }
  const Expr& first = *s.value->args[0];
  if (s.kind == StmtKind::kAssign) return first.kind == ExprKind::kVar && first.name == s.var;
  return first.kind == ExprKind::kLoad && first.slot == s.slot &&
         same_expr(*first.args[0], *s.index);
}

void collect_slots(const Stmt& s, std::set<int>& reads, std::set<int>& writes) {
  for (const ExprPtr& e : {s.lo, s.hi, s.cond, s.index, s.value}) {
    if (e) collect_loads(*e, reads);
  }
  if (s.kind == StmtKind::kStore) writes.insert(s.slot);
  if (s.kind == StmtKind::kPrefetch) reads.insert(s.slot);
  for (const auto& child : s.body) collect_slots(*child, reads, writes);
}

bool mentions(const Stmt& s, const std::string& name) {
  for (const ExprPtr& e : {s.lo, s.hi, s.cond, s.index, s.value}) {
    if (e && mentions(*e, name)) return true;
  }
  for (const auto& child : s.body) {
    if (mentions(*child, name)) return true;
  }
  return false;
}

bool mentions(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::kVar && e.name == name) return true;
  for (const auto& a : e.args) {
    if (mentions(*a, name)) return true;
  }
  return false;
}

ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& bindings,
                   const std::function<ExprPtr(const ExprPtr&)>& after) {
  if (e->kind == ExprKind::kVar) {
    auto it = bindings.find(e->name);
    return it == bindings.end() ? e : it->second;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  bool changed = false;
  for (auto& a : copy->args) {
    ExprPtr r = substitute(a, bindings, after);
    changed = changed || r != a;
    a = r;
  }
  ExprPtr out = changed ? ExprPtr(copy) : e;
  return after ? after(out) : out;
}

StmtPtr deep_copy(const StmtPtr& s) {
  auto copy = std::make_shared<Stmt>(*s);
  for (auto& b : copy->body) b = deep_copy(b);
  return copy;
}

StmtPtr substitute(const StmtPtr& s, const std::map<std::string, ExprPtr>& bindings) {
  auto copy = std::make_shared<Stmt>(*s);
  for (ExprPtr* e : {&copy->lo, &copy->hi, &copy->cond, &copy->index, &copy->value}) {
    if (*e) *e = substitute(*e, bindings);
  }
  for (auto& b : copy->body) b = substitute(b, bindings);
  return copy;
}

namespace {

ExprPtr renumber_expr(const ExprPtr& e, const std::vector<int>& new_slot) {
  if (e->args.empty() && e->kind != ExprKind::kLoad) return e;
  auto copy = std::make_shared<Expr>(*e);
  if (copy->kind == ExprKind::kLoad) copy->slot = new_slot.at(static_cast<size_t>(copy->slot));
  for (auto& a : copy->args) a = renumber_expr(a, new_slot);
  return copy;
}

}  // namespace

StmtPtr renumber_slots(const StmtPtr& s, const std::vector<int>& new_slot) {
  auto copy = std::make_shared<Stmt>(*s);
  for (ExprPtr* e : {&copy->lo, &copy->hi, &copy->cond, &copy->index, &copy->value}) {
    if (*e) *e = renumber_expr(*e, new_slot);
  }
  if (copy->kind == StmtKind::kStore || copy->kind == StmtKind::kPrefetch) {
    copy->slot = new_slot.at(static_cast<size_t>(copy->slot));
  }
  for (auto& b : copy->body) b = renumber_slots(b, new_slot);
  return copy;
}

bool same_expr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.dtype != b.dtype || a.lanes != b.lanes ||
      a.args.size() != b.args.size()) {
    return false;
  }
  switch (a.kind) {
    case ExprKind::kConst:
      if (a.int_value != b.int_value) return false;
      if (dtype_is_float(a.dtype) && !(a.float_value == b.float_value)) return false;
      break;
    case ExprKind::kVar:
      if (a.name != b.name) return false;
      break;
    case ExprKind::kLoad:
      if (a.slot != b.slot || a.mask_lanes != b.mask_lanes) return false;
      break;
    case ExprKind::kOp:
      if (a.op != b.op) return false;
      break;
    case ExprKind::kCast:
      break;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!same_expr(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

}  // namespace plaidml::jit::loop
