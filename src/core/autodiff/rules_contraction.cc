// Contractions (PlaidML's rule). For O[o(x)] = +(A[a(x)] * B[b(x)]) the gradient of A is the
// contraction over the same index space with the output access and A's access swapped:
// dA[a(x) : dims(A)] = +(dO[o(x)] * B[b(x)]), with the same user constraints. The index
// variables that summed (in no output access) become output-side; a point valid in the forward
// contraction is valid here and vice versa, because every access of the forward contraction
// stays an access (or, where an input drops out, becomes a range constraint on its index).
#include <fmt/format.h>

#include <string>

#include "core/autodiff/grad_context.h"
#include "core/autodiff/reduce_to_shape.h"

namespace plaidml::autodiff::detail {

using ir::AggOp;
using ir::CombOp;

namespace {

// 0 <= a(x) < size for each dim: keeps the points where an access that the gradient contraction
// no longer reads was in range in the forward one.
void constrain_to(GradContext& cx, const ir::TensorAccess& access,
                  std::vector<ir::UserConstraint>* out) {
  ir::SymbolicDims dims = cx.dims(access.tensor);
  for (size_t k = 0; k < access.indices.size() && k < dims.size(); ++k) {
    out->push_back(ir::UserConstraint{access.indices[k], dims[k], access.loc});
  }
}

// The gradient contraction writing into input k's access, reading `inputs`, and constraining
// to every forward input access not among them (`keep` marks the ones read).
ValueId swap_into(GradContext& cx, const ir::Contraction& c, size_t k, CombOp comb,
                  std::vector<ir::TensorAccess> inputs, const std::vector<bool>& keep) {
  ir::Contraction d;
  d.agg = AggOp::kSum;
  d.comb = comb;
  d.out_indices = c.inputs[k].indices;
  d.out_sizes = cx.dims(c.inputs[k].tensor);
  d.inputs = std::move(inputs);
  d.constraints = c.constraints;
  for (size_t j = 0; j < c.inputs.size(); ++j) {
    if (j != k && !keep[j]) constrain_to(cx, c.inputs[j], &d.constraints);
  }
  return cx.contract(std::move(d));
}

std::string agg_text(AggOp agg) {
  switch (agg) {
    case AggOp::kSum:
      return "sum (+)";
    case AggOp::kProd:
      return "product (*)";
    case AggOp::kMax:
      return "max (>)";
    case AggOp::kMin:
      return "min (<)";
    case AggOp::kAssign:
      return "assign (=)";
  }
  return "?";
}

// + and = aggregation: each input gets the swapped contraction for its combination.
Status sum_rule(GradContext& cx, ValueId id, const ir::Contraction& c, ValueId g) {
  ir::TensorAccess dO{g, c.out_indices, {}};
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    ValueId a = c.inputs[k].tensor;
    if (!cx.relevant(a)) continue;
    switch (c.comb) {
      case CombOp::kNone:
      case CombOp::kAdd:  // d(A + B)/dA = 1: only the other access's range remains
        cx.emit(a, swap_into(cx, c, k, CombOp::kNone, {dO}, {false, false}));
        break;
      case CombOp::kMul:
        cx.emit(a, swap_into(cx, c, k, CombOp::kMul, {dO, c.inputs[1 - k]}, {true, true}));
        break;
      case CombOp::kEq:
        return make_error(StatusCode::kInvalidArgument,
                          "gradient: '{}' is an equality (==) contraction, which is not "
                          "differentiable (a boolean result)",
                          cx.node(id).name);
      case CombOp::kCond:  // (A == B) ? C: only C carries values
        if (k != 2) break;
        cx.emit(a, swap_into(cx, c, k, CombOp::kCond, {c.inputs[0], c.inputs[1], dO},
                             {true, true, true}));
        break;
    }
  }
  return cx.status();
}

// max/min of one input: the gradient goes to the elements equal to the result (every one of
// them on a tie): dA[a] = +(A[a] == O[o] ? dO[o]).
Status extremum_rule(GradContext& cx, ValueId id, const ir::Contraction& c, ValueId g) {
  if (c.comb != CombOp::kNone) {
    return make_error(StatusCode::kInvalidArgument,
                      "gradient: '{}' is a {} contraction of a combination of inputs, which has "
                      "no gradient (only a {} of one input has one)",
                      cx.node(id).name, agg_text(c.agg), c.agg == AggOp::kMax ? "max" : "min");
  }
  if (!cx.relevant(c.inputs[0].tensor)) return cx.status();
  ir::TensorAccess out{id, c.out_indices, {}}, dO{g, c.out_indices, {}};
  cx.emit(c.inputs[0].tensor, swap_into(cx, c, 0, CombOp::kCond, {c.inputs[0], out, dO}, {true}));
  return cx.status();
}

// Where an `=` contraction writes: a bool tensor, true at every element some valid point writes.
ValueId written_mask(GradContext& cx, const ir::Contraction& c) {
  ir::Contraction m;
  m.agg = AggOp::kAssign;
  m.comb = CombOp::kEq;
  m.out_indices = c.out_indices;
  m.out_sizes = c.out_sizes;
  m.inputs = {c.inputs[0], c.inputs[0]};
  m.constraints = c.constraints;
  for (size_t j = 1; j < c.inputs.size(); ++j) constrain_to(cx, c.inputs[j], &m.constraints);
  return cx.contract(std::move(m));
}

// `default D`: + adds D to every element; = keeps D where nothing is written; max/min keep D
// where it wins (ties: D gets the gradient too).
void default_rule(GradContext& cx, ValueId id, const ir::Contraction& c, ValueId g) {
  ValueId d = *c.default_value;
  if (!cx.relevant(d)) return;
  ValueId zero = cx.lit(0.0);
  ValueId gd = g;
  switch (c.agg) {
    case AggOp::kSum:
    case AggOp::kProd:
      break;
    case AggOp::kAssign:
      gd = cx.call("select", {written_mask(cx, c), zero, g});
      break;
    case AggOp::kMax:
    case AggOp::kMin:
      gd = cx.call("select", {cx.call("cmp_eq", {id, d}), g, zero});
      break;
  }
  cx.emit_reduced(d, gd, c.out_sizes);
}

}  // namespace

Status contraction_rule(GradContext& cx, ValueId id, ValueId g) {
  ir::Contraction c = cx.node(id).contraction;
  switch (c.agg) {
    case AggOp::kProd:
      return make_error(StatusCode::kInvalidArgument,
                        "gradient: '{}' is a product (*) contraction, which has no gradient",
                        cx.node(id).name);
    case AggOp::kMax:
    case AggOp::kMin:
      PLAIDML_TRY(extremum_rule(cx, id, c, g));
      break;
    case AggOp::kSum:
    case AggOp::kAssign:
      PLAIDML_TRY(sum_rule(cx, id, c, g));
      break;
  }
  if (c.default_value) default_rule(cx, id, c, g);
  return cx.status();
}

}  // namespace plaidml::autodiff::detail
