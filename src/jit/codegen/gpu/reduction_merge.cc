#include "jit/codegen/gpu/reduction_merge.h"

#include <string>
#include <vector>

#include "jit/codegen/gpu/contraction_match.h"
#include "jit/codegen/gpu/kernel_builders.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {

using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

namespace {

// A copy of `s` in which the statement `target` is replaced by `replacement`.
StmtPtr replaced(const StmtPtr& s, const Stmt* target, const StmtPtr& replacement) {
  if (s.get() == target) return replacement;
  auto copy = std::make_shared<Stmt>(*s);
  for (StmtPtr& child : copy->body) child = replaced(child, target, replacement);
  return copy;
}

// The merged loop for `outer` { [if guard] { k { body } } }: kk over both trips, the outer
// variable lo + (kk / T) * step and k's lo + (kk % T) * step (T: k's trips).
StmtPtr merged_loop(const Stmt& outer, const Stmt* guard, const Stmt& k, const std::string& kk) {
  const int64_t inner = loop::trip_count(k);
  const ExprPtr at = loop::var(kk);
  const build::Bindings values = {
      {outer.var, build::value_of(outer, build::index_op(ir::OpKind::Div, at, build::c(inner)))},
      {k.var, build::value_of(k, build::index_op(ir::OpKind::Mod, at, build::c(inner)))}};
  std::vector<StmtPtr> body;
  for (const StmtPtr& s : k.body) body.push_back(loop::substitute(s, values));
  if (guard) body = {loop::if_then(loop::substitute(guard->cond, values), std::move(body))};
  return build::counted(kk, build::c(0), build::c(loop::trip_count(outer) * inner), 1,
                        std::move(body));
}

// Merge `number` (from 0) of the form's k loop with the loop around it, or nullopt.
std::optional<loop::Kernel> merge_once(const loop::Kernel& kernel, int number) {
  std::optional<RegisterForm> form = match_register_form(kernel);
  if (!form || form->k_pos == 0) return std::nullopt;
  const Stmt& k = form->k_loop();
  if (loop::trip_count(k) >= (number == 0 ? kMergeBelow : kMergeUntil)) return std::nullopt;
  size_t outer_pos = form->k_pos - 1;
  const Stmt* guard = nullptr;
  if (form->path[outer_pos]->kind == StmtKind::kIf) {
    if (outer_pos == 0) return std::nullopt;
    guard = form->path[outer_pos--];
  }
  const Stmt& outer = *form->path[outer_pos];
  if (outer.kind != StmtKind::kFor) return std::nullopt;
  StmtPtr merged = merged_loop(outer, guard, k, "@kmerge" + std::to_string(number));
  loop::Kernel out = kernel;
  out.body = replaced(kernel.body, &outer, merged);
  return out;
}

}  // namespace

std::optional<loop::Kernel> merge_short_reductions(const loop::Kernel& kernel) {
  std::optional<loop::Kernel> out;
  for (int n = 0;; ++n) {
    std::optional<loop::Kernel> next = merge_once(out ? *out : kernel, n);
    if (!next) return out;
    out = std::move(next);
  }
}

}  // namespace plaidml::jit::gpu
