#include "jit/codegen/gpu/contraction_match.h"

#include <algorithm>
#include <functional>

#include "jit/loop/printer.h"

namespace plaidml::jit::gpu {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

bool constant_bounds(const Stmt& s) {
  return s.kind == StmtKind::kFor && s.lo->is_const() && s.hi->is_const() && s.step > 0;
}

// The chain of single-statement ifs and fors from `s` down to the assignment of `acc`.
bool walk_path(const Stmt* s, const std::string& acc, RegisterForm& form) {
  while (s->kind == StmtKind::kIf || s->kind == StmtKind::kFor) {
    if (s->body.size() != 1) return false;
    if (s->kind == StmtKind::kFor && !constant_bounds(*s)) return false;
    form.path.push_back(s);
    s = s->body[0].get();
  }
  if (s->kind != StmtKind::kAssign || s->var != acc) return false;
  form.assign = s;
  return true;
}

// The guards of the path read no loads, so moving them to each point is exact.
bool path_guards_pure(const RegisterForm& form) {
  for (const Stmt* s : form.path) {
    if (s->kind == StmtKind::kIf && has_load(*s->cond)) return false;
  }
  return true;
}

void collect_loads(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == ExprKind::kLoad) out.push_back(&e);
  for (const auto& a : e.args) collect_loads(*a, out);
}

// Whether some load of the aggregation reads both band loop `var` and n.
bool read_with_n(const RegisterForm& form, const std::string& var) {
  std::vector<const Expr*> loads = aggregation_loads(form);
  return std::any_of(loads.begin(), loads.end(), [&](const Expr* load) {
    std::set<std::string> vars = vars_of(*load);
    return vars.count(var) > 0 && vars.count(form.n_loop().var) > 0;
  });
}

// The m group: the loop before n, grown outwards (see match_register_form).
size_t choose_m_first(const RegisterForm& form) {
  if (form.band.size() < 2) return form.band.size() - 1;
  size_t first = form.band.size() - 2;
  int64_t extent = loop::trip_count(*form.band[first]);
  while (first > 0 && extent < kMergeExtent && !read_with_n(form, form.band[first - 1]->var)) {
    --first;
    extent *= loop::trip_count(*form.band[first]);
  }
  return first;
}

}  // namespace

std::vector<const Expr*> aggregation_loads(const RegisterForm& form) {
  std::vector<const Expr*> loads;
  collect_loads(*form.assign->value, loads);
  return loads;
}

int64_t RegisterForm::m_extent() const {
  int64_t extent = 1;
  for (const loop::Stmt* s : m_loops()) extent *= loop::trip_count(*s);
  return extent;
}

std::set<std::string> vars_of(const Expr& e) {
  std::set<std::string> out;
  std::function<void(const Expr&)> visit = [&](const Expr& x) {
    if (x.kind == ExprKind::kVar) out.insert(x.name);
    for (const auto& a : x.args) visit(*a);
  };
  visit(e);
  return out;
}

bool has_load(const Expr& e) {
  if (e.kind == ExprKind::kLoad) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const auto& a) { return has_load(*a); });
}

std::optional<RegisterForm> match_register_form(const loop::Kernel& kernel) {
  if (!kernel.body || kernel.body->body.size() != 1) return std::nullopt;
  RegisterForm form;
  form.band = loop::find_band(kernel);
  if (form.band.empty()) return std::nullopt;
  for (const Stmt* s : form.band) {
    if (!constant_bounds(*s) || loop::trip_count(*s) == 0) return std::nullopt;
  }
  const auto& body = form.band.back()->body;
  if (body.size() < 3 || body[0]->kind != StmtKind::kDeclare) return std::nullopt;
  form.declare = body[0].get();
  if (!walk_path(body[1].get(), form.declare->var, form)) return std::nullopt;
  for (size_t i = 2; i < body.size(); ++i) form.epilogue.push_back(body[i].get());
  // The staged loop: the innermost reduction loop.
  bool found = false;
  for (size_t i = 0; i < form.path.size(); ++i) {
    if (form.path[i]->kind == StmtKind::kFor) {
      form.k_pos = i;
      found = true;
    }
  }
  if (!found || !path_guards_pure(form)) return std::nullopt;
  form.m_first = choose_m_first(form);
  return form;
}

std::set<std::string> uniform_vars(const RegisterForm& form) {
  std::set<std::string> out;
  for (size_t i = 0; i < form.uniform_band_count(); ++i) out.insert(form.band[i]->var);
  for (size_t i = 0; i < form.k_pos; ++i) {
    if (form.path[i]->kind == StmtKind::kFor) out.insert(form.path[i]->var);
  }
  return out;
}

std::vector<ClassifiedLoad> classify_loads(const RegisterForm& form) {
  std::vector<const Expr*> loads = aggregation_loads(form);
  const std::set<std::string> uniform = uniform_vars(form);
  const std::string& k = form.k_loop().var;
  const std::string& n = form.n_loop().var;
  std::set<std::string> m;
  for (const loop::Stmt* s : form.m_loops()) m.insert(s->var);
  std::vector<ClassifiedLoad> out;
  for (const Expr* load : loads) {
    std::string key = loop::to_string(*load);
    bool seen = std::any_of(out.begin(), out.end(), [&](const auto& c) { return c.key == key; });
    if (seen) continue;
    ClassifiedLoad c{load, LoadSide::kGlobal, key};
    std::set<std::string> vars = vars_of(*load->args[0]);
    bool on_k = vars.count(k) > 0;
    bool on_m = std::any_of(m.begin(), m.end(), [&](const auto& v) { return vars.count(v) > 0; });
    bool on_n = vars.count(n) > 0;
    bool known = std::all_of(vars.begin(), vars.end(), [&](const std::string& v) {
      return v == k || v == n || m.count(v) > 0 || uniform.count(v) > 0;
    });
    bool stageable = on_k && !(on_m && on_n) && known && !has_load(*load->args[0]) &&
                     load->dtype != DType::Bool;
    if (stageable) c.side = on_m ? LoadSide::kM : (on_n ? LoadSide::kN : LoadSide::kK);
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<int64_t> linear_coeff(const Expr& e, const std::string& var) {
  switch (e.kind) {
    case ExprKind::kConst: return 0;
    case ExprKind::kVar: return e.name == var ? 1 : 0;
    case ExprKind::kCast: return linear_coeff(*e.args[0], var);
    case ExprKind::kLoad: return std::nullopt;
    case ExprKind::kOp: break;
  }
  if (e.args.size() != 2) return std::nullopt;
  auto a = linear_coeff(*e.args[0], var), b = linear_coeff(*e.args[1], var);
  if (!a || !b) return std::nullopt;
  switch (e.op) {
    case ir::OpKind::Add: return *a + *b;
    case ir::OpKind::Sub: return *a - *b;
    case ir::OpKind::Mul:
      if (e.args[1]->is_const() && *b == 0) return *a * e.args[1]->int_value;
      if (e.args[0]->is_const() && *a == 0) return *b * e.args[0]->int_value;
      return (*a == 0 && *b == 0) ? std::optional<int64_t>(0) : std::nullopt;
    default:
      return (*a == 0 && *b == 0) ? std::optional<int64_t>(0) : std::nullopt;
  }
}

}  // namespace plaidml::jit::gpu
