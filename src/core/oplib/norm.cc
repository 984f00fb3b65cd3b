// Normalisations: batch_norm (inference, with given statistics; ONNX operand order) and
// layer_norm (statistics over the normalised axes of each sample).
#include "core/oplib/op_call.h"
#include "core/oplib/reduce_util.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;

Expected<double> read_epsilon(OpCall& c) {
  PLAIDML_ASSIGN(double eps, c.get_float("epsilon", 1e-5));
  if (eps < 0) {
    return c.error(StatusCode::kInvalidArgument, "attribute 'epsilon' must be >= 0, got {}", eps);
  }
  return eps;
}

// A 1-D per-channel operand k reshaped to [C, 1, ..., 1] so that it broadcasts along `axis` of a
// rank-`rank` input with `channels` channels.
Expected<ValueId> channel_param(OpCall& c, size_t k, const IntExprPtr& channels, int64_t axis,
                                size_t rank) {
  PLAIDML_ASSIGN(SymbolicDims d, c.dims_of_rank(k, 1));
  auto want = se::literal_value(*channels);
  auto got = se::literal_value(*d[0]);
  if (want && got && *want != *got) {
    return c.error(StatusCode::kTypeError, "argument '{}' has {} channels but input has {}",
                   c.operand_name(k), *got, *want);
  }
  std::vector<IntExprPtr> shape{d[0]};
  for (size_t a = axis + 1; a < rank; ++a) shape.push_back(se::lit(1));
  if (shape.size() == 1) return c.operand(k);
  return c.call("reshape", {c.operand(k)}, shape);
}

// (X - mean) * scale / sqrt(variance + epsilon) + bias, per channel along `axis`.
Expected<ValueId> batch_norm_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims dims, c.dims(0));
  PLAIDML_ASSIGN(double eps, read_epsilon(c));
  PLAIDML_ASSIGN(int64_t a, c.get_int("axis", -1));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(a, dims.size(), "axis"));
  ValueId p[5];
  for (size_t k = 1; k < 5; ++k) {
    PLAIDML_ASSIGN(p[k], channel_param(c, k, dims[axis], axis, dims.size()));
  }
  ValueId inv = c.div(p[1], c.call("sqrt", {c.add(p[4], c.literal(eps))}));
  return c.finish(c.add(c.mul(c.sub(c.operand(0), p[3]), inv), p[2]));
}

// An optional scale/bias operand: its dims are those of the normalised axes (in axis order);
// reshaped with size-1 axes elsewhere so that it broadcasts against the input.
Expected<ValueId> norm_param(OpCall& c, size_t k, const SymbolicDims& dims, const AxisSet& axes) {
  size_t count = 0;
  for (bool r : axes) count += r ? 1 : 0;
  PLAIDML_ASSIGN(SymbolicDims d, c.dims_of_rank(k, count));
  std::vector<IntExprPtr> shape;
  size_t next = 0;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (!axes[a]) {
      shape.push_back(se::lit(1));
      continue;
    }
    auto want = se::literal_value(*dims[a]);
    auto got = se::literal_value(*d[next]);
    if (want && got && *want != *got) {
      return c.error(StatusCode::kTypeError,
                     "argument '{}' has size {} on its axis {} but input "
                     "has size {} on axis {}",
                     c.operand_name(k), *got, next, *want, a);
    }
    shape.push_back(d[next++]);
  }
  // Leading size-1 axes are what numpy broadcasting adds anyway; drop them from the reshape.
  size_t lead = 0;
  while (lead < dims.size() && !axes[lead]) ++lead;
  if (dims.size() - lead == count) return c.operand(k);
  return c.call("reshape", {c.operand(k)},
                std::vector<IntExprPtr>(shape.begin() + lead, shape.end()));
}

// (X - mean) / sqrt(var + epsilon) over `axes` (biased variance), then * scale + bias.
Expected<ValueId> layer_norm_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims dims, c.dims(0));
  PLAIDML_ASSIGN(AxisSet axes, read_axes(c, "axes", dims.size(), std::vector<int64_t>{-1}));
  PLAIDML_ASSIGN(double eps, read_epsilon(c));
  ValueId x = c.operand(0);
  ValueId d = c.sub(x, reduce_mean(c, x, dims, axes, true));
  ValueId var = reduce_mean(c, c.mul(d, d), dims, axes, true);
  ValueId y = c.div(d, c.call("sqrt", {c.add(var, c.literal(eps))}));
  if (c.has_operand(1)) {
    PLAIDML_ASSIGN(ValueId scale, norm_param(c, 1, dims, axes));
    y = c.mul(y, scale);
  }
  if (c.has_operand(2)) {
    PLAIDML_ASSIGN(ValueId bias, norm_param(c, 2, dims, axes));
    y = c.add(y, bias);
  }
  return c.finish(y);
}

}  // namespace

std::vector<OpDef> norm_ops() {
  return {
      {"batch_norm", {"input", "scale", "bias", "mean", "variance"}, 5, batch_norm_op},
      {"layer_norm", {"input", "scale", "bias"}, 1, layer_norm_op},
  };
}

}  // namespace plaidml::oplib
