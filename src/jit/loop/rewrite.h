// Small queries and rewrites of loop-IR expressions used by the loop passes: which variables an
// expression mentions, its affine form over the loop variables, and substitution of variables.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::loop {

// sum(coeffs[v] * v) + constant over i64 variables.
struct AffineIndex {
  std::map<std::string, int64_t> coeffs;
  int64_t constant = 0;
  int64_t coeff(const std::string& name) const {
    auto it = coeffs.find(name);
    return it == coeffs.end() ? 0 : it->second;
  }
};

// The affine form of an i64 scalar expression built from constants, variables, +, - and
// multiplication by a constant; nullopt for anything else (division, loads, ...).
std::optional<AffineIndex> affine_of(const Expr& e);

// Whether `e` reads variable `name`.
bool mentions(const Expr& e, const std::string& name);
// Whether any expression of `s` (or of a statement inside it) reads variable `name`.
bool mentions(const Stmt& s, const std::string& name);
// The slots that `s` loads from (reads) and stores to (writes), added to the sets.
void collect_slots(const Stmt& s, std::set<int>& reads, std::set<int>& writes);
// The slots that `e` loads from, added to the set.
void collect_loads(const Expr& e, std::set<int>& reads);
// Whether `s` is an aggregation's update of its own target, T = op(T, ...): a store whose value's
// first operand loads the element it stores to, or an assignment whose first operand is the local.
bool updates_itself(const Stmt& s);

// `e` with every variable named in `bindings` replaced by its expression. `after`, when given,
// is applied to every rebuilt or kept node that has operands, bottom-up (simplify folds there).
ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& bindings,
                   const std::function<ExprPtr(const ExprPtr&)>& after = {});

// A copy of the statement tree that shares no Stmt with `s` (expressions are immutable and
// stay shared), for passes that edit statements in place.
StmtPtr deep_copy(const StmtPtr& s);
// A deep copy of `s` with every variable named in `bindings` replaced in all its expressions.
StmtPtr substitute(const StmtPtr& s, const std::map<std::string, ExprPtr>& bindings);

// A copy of `s` whose loads and stores use slot new_slot[old] (every slot it names must map).
StmtPtr renumber_slots(const StmtPtr& s, const std::vector<int>& new_slot);

// Structural equality.
bool same_expr(const Expr& a, const Expr& b);

}  // namespace plaidml::jit::loop
