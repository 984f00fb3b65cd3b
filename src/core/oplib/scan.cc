// Cumulative sum and product along one axis (numpy / ONNX CumSum semantics, with exclusive and
// reverse). Each is one contraction: S[.., i, ..] = agg(X[.., k, ..]) over the k a constraint on
// i - k allows; points with no k (the first element of an exclusive scan) keep the identity.
#include "core/oplib/op_call.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;

template <ir::AggOp kAgg>
Expected<ValueId> scan_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims dims, c.dims(0));
  PLAIDML_ASSIGN(int64_t a, c.get_int("axis", std::nullopt));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(a, dims.size(), "axis"));
  PLAIDML_ASSIGN(bool exclusive, c.get_bool("exclusive", false));
  PLAIDML_ASSIGN(bool reverse, c.get_bool("reverse", false));
  std::vector<IntExprPtr> out = c.indices(dims.size());
  std::vector<IntExprPtr> in = out;
  IntExprPtr i = out[axis];
  IntExprPtr k = c.index();
  in[axis] = k;
  // Forward: k <= i (k < i when exclusive); reverse: k >= i (k > i).
  IntExprPtr dist = reverse ? se::sub(k, i) : se::sub(i, k);
  if (exclusive) dist = se::sub(dist, se::lit(1));
  return c.finish(c.contract(kAgg, ir::CombOp::kNone, out, dims, {Access{c.operand(0), in}},
                             {Constraint{dist, dims[axis]}}));
}

}  // namespace

std::vector<OpDef> scan_ops() {
  return {
      {"cumsum", {"input"}, 1, scan_op<ir::AggOp::kSum>},
      {"cumprod", {"input"}, 1, scan_op<ir::AggOp::kProd>},
  };
}

}  // namespace plaidml::oplib
