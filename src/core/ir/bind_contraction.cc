// Contractions (docs/tile.md section 2): output sizes in C integer arithmetic, index expressions as
// exact affine polynomials, the validity conditions of a point, and bounds inference on them.
//
// dtype: promote() of the inputs under the weak-literal rule; `==` gives bool; `A == B ? C`
// gives C's dtype. compute_dtype is the dtype the inputs are combined in: the result dtype,
// except for `==` and `?` where it is the dtype A and B are compared in.
#include <fmt/format.h>

#include <set>
#include <unordered_set>

#include "core/ir/bind_common.h"
#include "core/ir/bind_int_expr.h"
#include "core/ir/printer.h"
#include "core/ir/type_rules.h"

namespace plaidml::ir::detail {
namespace {

struct ContractionCtx {
  BindState& s;
  ValueId id;
  const Node& n;
  const Contraction& c;
  BoundContraction& out;
  std::string prefix() const { return fmt::format("{}contraction '{}': ", where(n.loc), n.name); }
};

Expected<std::vector<int64_t>> eval_out_sizes(const ContractionCtx& x) {
  std::vector<int64_t> sizes;
  for (size_t d = 0; d < x.c.out_sizes.size(); ++d) {
    const IntExpr& e = *x.c.out_sizes[d];
    auto v = eval_size(e, x.s.bound.dims);
    if (!v) return v.status().with_context(x.prefix());
    if (*v < 0) {
      return make_error(StatusCode::kTypeError,
                        "{}size {} of output dimension {} ('{}') is negative: {}", x.prefix(), *v,
                        d, print_int_expr(e), "sizes must be 0 or more");
    }
    sizes.push_back(*v);
  }
  return sizes;
}

// Each shared subexpression is walked once (a size over symbolic dims is a DAG).
void collect_indices(const IntExpr& e, std::vector<std::string>* order, std::set<std::string>* seen,
                     std::unordered_set<const IntExpr*>* walked) {
  if (!walked->insert(&e).second) return;
  if (e.op == IntOp::kIndex && seen->insert(e.name).second) order->push_back(e.name);
  for (const auto& a : e.args) collect_indices(*a, order, seen, walked);
}

// Output indices first, in order of first appearance, then the others.
std::vector<std::string> index_order(const Contraction& c) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  std::unordered_set<const IntExpr*> walked;
  for (const auto& e : c.out_indices) collect_indices(*e, &order, &seen, &walked);
  for (const auto& a : c.inputs) {
    for (const auto& e : a.indices) collect_indices(*e, &order, &seen, &walked);
  }
  for (const auto& u : c.constraints) collect_indices(*u.poly, &order, &seen, &walked);
  return order;
}

Expected<std::vector<poly::Affine>> access_affines(const ContractionCtx& x,
                                                   const std::vector<IntExprPtr>& indices) {
  std::vector<poly::Affine> out;
  for (const auto& e : indices) {
    auto a = to_affine(*e, x.s.bound.dims);
    if (!a) return a.status().with_context(x.prefix());
    out.push_back(std::move(*a));
  }
  return out;
}

// 0 <= access[d] <= dims[d] - 1 for every dim; rational accesses also go on `integral`.
void add_access(const std::vector<poly::Affine>& access, const std::vector<int64_t>& dims,
                std::vector<poly::RangeConstraint>* conditions,
                std::vector<poly::Affine>* integral) {
  for (size_t d = 0; d < access.size(); ++d) {
    conditions->push_back(poly::RangeConstraint{access[d], 0, dims[d] - 1});
    if (access[d].denominator() != 1) integral->push_back(access[d]);
  }
}

Status bind_inputs(ContractionCtx& x, std::vector<poly::Affine>* integral) {
  for (const auto& acc : x.c.inputs) {
    const Shape& shape = x.s.bound.nodes[acc.tensor].shape;
    if (acc.indices.size() != shape.rank()) {
      return make_error(
          StatusCode::kTypeError, "{}'{}' has {} dimension{} ({}) but is indexed with {} ind{}",
          x.prefix(), describe(x.s.program, acc.tensor), shape.rank(), shape.rank() == 1 ? "" : "s",
          shape.to_string(), acc.indices.size(), acc.indices.size() == 1 ? "ex" : "ices");
    }
    PLAIDML_ASSIGN(auto access, access_affines(x, acc.indices));
    add_access(access, shape.dims, &x.out.conditions, integral);
    x.out.inputs.push_back(acc.tensor);
    x.out.in_access.push_back(std::move(access));
  }
  return Status::ok();
}

Status bind_constraints(ContractionCtx& x) {
  for (const auto& u : x.c.constraints) {
    auto poly = to_affine(*u.poly, x.s.bound.dims);
    if (!poly) return poly.status().with_context(x.prefix());
    auto bound = eval_size(*u.bound, x.s.bound.dims);
    if (!bound) return bound.status().with_context(x.prefix());
    // A bound of 0 or less admits no point: the set is empty, which is not an error.
    x.out.conditions.push_back(poly::RangeConstraint{std::move(*poly), 0, *bound - 1});
  }
  return Status::ok();
}

OpTypes contraction_types(const ContractionCtx& x) {
  std::vector<TypedOperand> in;
  for (ValueId v : x.out.inputs) {
    const BoundNode& b = x.s.bound.nodes[v];
    in.push_back(TypedOperand{b.shape.dtype, b.weak});
  }
  if (x.c.comb == CombOp::kEq || x.c.comb == CombOp::kCond) {
    TypedOperand cmp = unify({in.at(0), in.at(1)});
    DType result = x.c.comb == CombOp::kEq ? DType::Bool : unify({in.at(2)}).dtype;
    return OpTypes{result, cmp.dtype, false};
  }
  TypedOperand u = unify(in);
  return OpTypes{u.dtype, u.dtype, false};
}

Status check_default(const ContractionCtx& x, const std::vector<int64_t>& out_dims) {
  if (!x.c.default_value) return Status::ok();
  const Shape& d = x.s.bound.nodes[*x.c.default_value].shape;
  auto b = broadcast_dims(d.dims, out_dims);
  if (b && *b == out_dims) return Status::ok();
  return make_error(StatusCode::kTypeError,
                    "{}default value '{}' ({}) does not broadcast to the output shape {}",
                    x.prefix(), describe(x.s.program, *x.c.default_value), d.to_string(),
                    dims_to_string(out_dims));
}

Status check_comb_arity(const ContractionCtx& x) {
  size_t want = 1;
  switch (x.c.comb) {
    case CombOp::kNone:
      want = 1;
      break;
    case CombOp::kMul:
    case CombOp::kAdd:
    case CombOp::kEq:
      want = 2;
      break;
    case CombOp::kCond:
      want = 3;
      break;
  }
  if (x.c.inputs.size() == want && x.c.out_sizes.size() == x.c.out_indices.size()) {
    return Status::ok();
  }
  return make_error(StatusCode::kInternal, "bind: contraction '{}' is malformed", x.n.name);
}

Status solve_bounds(ContractionCtx& x, const std::vector<poly::Affine>& integral) {
  x.out.indices = index_order(x.c);
  auto r = poly::infer_bounds(x.out.indices, x.out.conditions, integral);
  if (!r) return r.status().with_context(x.prefix());
  x.out.ranges = std::move(r->ranges);
  x.out.residual = std::move(r->residual);
  x.out.empty = r->empty;
  return Status::ok();
}

}  // namespace

Status bind_contraction(BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  BoundNode& b = s.bound.nodes[id];
  b.contraction.emplace();
  ContractionCtx x{s, id, n, n.contraction, *b.contraction};
  PLAIDML_TRY(check_comb_arity(x));
  x.out.agg = x.c.agg;
  x.out.comb = x.c.comb;
  x.out.default_value = x.c.default_value;
  PLAIDML_ASSIGN(std::vector<int64_t> sizes, eval_out_sizes(x));
  PLAIDML_TRY(check_default(x, sizes));
  PLAIDML_ASSIGN(x.out.out_access, access_affines(x, x.c.out_indices));
  std::vector<poly::Affine> integral;
  add_access(x.out.out_access, sizes, &x.out.conditions, &integral);
  PLAIDML_TRY(bind_inputs(x, &integral));
  PLAIDML_TRY(bind_constraints(x));
  PLAIDML_TRY(solve_bounds(x, integral));
  OpTypes t = contraction_types(x);
  b.shape = Shape(t.result, std::move(sizes));
  b.compute_dtype = t.compute;
  b.weak = false;
  return Status::ok();
}

}  // namespace plaidml::ir::detail
