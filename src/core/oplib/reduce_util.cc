#include "core/oplib/reduce_util.h"

#include <cmath>

namespace plaidml::oplib {

namespace se = ir::size_expr;

Expected<AxisSet> read_axes(OpCall& c, std::string_view attr, size_t rank,
                            const std::optional<std::vector<int64_t>>& fallback) {
  if (!c.has_attr(attr) && !fallback) return AxisSet(rank, true);
  PLAIDML_ASSIGN(std::vector<int64_t> axes, c.get_ints(attr, fallback));
  AxisSet set(rank, false);
  for (int64_t a : axes) {
    PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(a, rank, attr));
    if (set[axis]) {
      return c.error(StatusCode::kInvalidArgument, "attribute '{}' names axis {} twice", attr,
                     axis);
    }
    set[axis] = true;
  }
  return set;
}

AxisSet single_axis(size_t rank, int64_t axis) {
  AxisSet set(rank, false);
  set.at(axis) = true;
  return set;
}

ValueId reduce(OpCall& c, ir::AggOp agg, ValueId x, const SymbolicDims& dims, const AxisSet& axes,
               bool keepdims) {
  std::vector<IntExprPtr> in_idx = c.indices(dims.size());
  std::vector<IntExprPtr> out_idx;
  std::vector<IntExprPtr> out_sizes;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!axes[k]) {
      out_idx.push_back(in_idx[k]);
      out_sizes.push_back(dims[k]);
    } else if (keepdims) {
      out_idx.push_back(se::lit(0));
      out_sizes.push_back(se::lit(1));
    }
  }
  return c.contract(agg, ir::CombOp::kNone, out_idx, out_sizes, {Access{x, in_idx}});
}

IntExprPtr reduced_count(const SymbolicDims& dims, const AxisSet& axes) {
  IntExprPtr n = se::lit(1);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (axes[k]) n = se::mul(n, dims[k]);
  }
  return n;
}

ValueId reduce_mean(OpCall& c, ValueId x, const SymbolicDims& dims, const AxisSet& axes,
                    bool keepdims) {
  ValueId sum = reduce(c, ir::AggOp::kSum, x, dims, axes, keepdims);
  return c.div(sum, c.size_value(reduced_count(dims, axes)));
}

SoftmaxParts softmax_parts(OpCall& c, ValueId x, const SymbolicDims& dims, int64_t axis) {
  AxisSet set = single_axis(dims.size(), axis);
  // Subtracting the max keeps exp() within range: the largest term is exp(0) = 1.
  ValueId m = reduce(c, ir::AggOp::kMax, x, dims, set, true);
  SoftmaxParts r;
  r.shifted = c.sub(x, m);
  r.exp = c.call("exp", {r.shifted});
  r.sum = reduce(c, ir::AggOp::kSum, r.exp, dims, set, true);
  return r;
}

ValueId number(OpCall& c, double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 0x1p53) {
    return c.int_literal(static_cast<int64_t>(v));
  }
  return c.literal(v);
}

ValueId clip(OpCall& c, ValueId x, double lo, double hi) {
  return c.call("max", {c.call("min", {x, number(c, hi)}), number(c, lo)});
}

}  // namespace plaidml::oplib
