// Reductions over axes (sum mean max min prod variance) and argmax/argmin. Each is a contraction
// over the reduced axes; keepdims keeps a reduced axis with size 1 (output index 0).
#include "core/oplib/op_call.h"
#include "core/oplib/reduce_util.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;

// The operand's dims, the `axes` attribute (default: every axis) and `keepdims`.
struct ReduceArgs {
  SymbolicDims dims;
  AxisSet axes;
  bool keepdims = false;
};

Expected<ReduceArgs> read_reduce_args(OpCall& c) {
  ReduceArgs a;
  PLAIDML_ASSIGN(a.dims, c.dims(0));
  PLAIDML_ASSIGN(a.axes, read_axes(c, "axes", a.dims.size(), std::nullopt));
  PLAIDML_ASSIGN(a.keepdims, c.get_bool("keepdims", false));
  return a;
}

template <ir::AggOp kAgg>
Expected<ValueId> plain_reduce(OpCall& c) {
  PLAIDML_ASSIGN(ReduceArgs a, read_reduce_args(c));
  return c.finish(reduce(c, kAgg, c.operand(0), a.dims, a.axes, a.keepdims));
}

Expected<ValueId> mean_op(OpCall& c) {
  PLAIDML_ASSIGN(ReduceArgs a, read_reduce_args(c));
  return c.finish(reduce_mean(c, c.operand(0), a.dims, a.axes, a.keepdims));
}

// numpy var: sum((X - mean)^2) / (count - ddof).
Expected<ValueId> variance_op(OpCall& c) {
  PLAIDML_ASSIGN(ReduceArgs a, read_reduce_args(c));
  PLAIDML_ASSIGN(int64_t ddof, c.get_int("ddof", 0));
  if (ddof < 0) {
    return c.error(StatusCode::kInvalidArgument, "attribute 'ddof' must be >= 0, got {}", ddof);
  }
  ValueId x = c.operand(0);
  ValueId d = c.sub(x, reduce_mean(c, x, a.dims, a.axes, true));
  ValueId ss = reduce(c, ir::AggOp::kSum, c.mul(d, d), a.dims, a.axes, a.keepdims);
  // numpy divides by max(count - ddof, 0): inf or nan when ddof >= count.
  IntExprPtr n = se::max(se::sub(reduced_count(a.dims, a.axes), se::lit(ddof)), se::lit(0));
  return c.finish(c.div(ss, c.size_value(n)));
}

// The first index of the extreme value along `axis` of x (rank >= 1), as int32. Where X equals
// the extreme M, T = j - N (negative); elsewhere T = 0. min(T) over the axis is first - N.
ValueId arg_extreme(OpCall& c, ir::AggOp agg, ValueId x, const SymbolicDims& dims, int64_t axis,
                    bool keepdims) {
  AxisSet set = single_axis(dims.size(), axis);
  ValueId m = reduce(c, agg, x, dims, set, true);
  ValueId n = c.size_value(dims[axis]);
  ValueId j = c.call("index", {x}, {se::lit(axis)});
  ValueId t = c.call("select", {c.call("cmp_eq", {x, m}), c.sub(j, n), c.int_literal(0)});
  ValueId first = c.add(reduce(c, ir::AggOp::kMin, t, dims, set, keepdims), n);
  return c.call("as_int", {first}, {se::lit(32)});
}

template <ir::AggOp kAgg>
Expected<ValueId> arg_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims dims, c.dims(0));
  PLAIDML_ASSIGN(bool keepdims, c.get_bool("keepdims", false));
  if (c.has_attr("axis")) {
    PLAIDML_ASSIGN(int64_t a, c.get_int("axis", std::nullopt));
    PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(a, dims.size(), "axis"));
    return c.finish(arg_extreme(c, kAgg, c.operand(0), dims, axis, keepdims));
  }
  // No axis: over the flattened tensor, like numpy (keepdims gives rank-many size-1 axes).
  IntExprPtr total = reduced_count(dims, AxisSet(dims.size(), true));
  ValueId flat = c.call("reshape", {c.operand(0)}, {total});
  ValueId r = arg_extreme(c, kAgg, flat, {total}, 0, false);
  if (keepdims && !dims.empty()) {
    r = c.call("reshape", {r}, std::vector<IntExprPtr>(dims.size(), se::lit(1)));
  }
  return c.finish(r);
}

}  // namespace

std::vector<OpDef> reduce_ops() {
  return {
      {"sum", {"input"}, 1, plain_reduce<ir::AggOp::kSum>},
      {"mean", {"input"}, 1, mean_op},
      {"max", {"input"}, 1, plain_reduce<ir::AggOp::kMax>},
      {"min", {"input"}, 1, plain_reduce<ir::AggOp::kMin>},
      {"prod", {"input"}, 1, plain_reduce<ir::AggOp::kProd>},
      {"variance", {"input"}, 1, variance_op},
      {"argmax", {"input"}, 1, arg_op<ir::AggOp::kMax>},
      {"argmin", {"input"}, 1, arg_op<ir::AggOp::kMin>},
  };
}

}  // namespace plaidml::oplib
