// Cross-entropy losses (Keras conventions: operands target, output; probabilities clipped to
// [epsilon, 1 - epsilon]; logits handled in numerically stable closed forms).
#include "core/oplib/op_call.h"
#include "core/oplib/reduce_util.h"

namespace plaidml::oplib {
namespace {

struct LossArgs {
  SymbolicDims dims;  // of output (target has the same rank)
  bool from_logits = false;
  double epsilon = 1e-7;
  std::string reduction;
};

Expected<LossArgs> read_loss_args(OpCall& c) {
  LossArgs a;
  PLAIDML_ASSIGN(SymbolicDims target, c.dims(0));
  PLAIDML_ASSIGN(a.dims, c.dims_of_rank(1, target.size()));
  PLAIDML_ASSIGN(a.from_logits, c.get_bool("from_logits", false));
  PLAIDML_ASSIGN(a.epsilon, c.get_float("epsilon", 1e-7));
  if (!(a.epsilon >= 0 && a.epsilon < 0.5)) {
    return c.error(StatusCode::kInvalidArgument, "attribute 'epsilon' must be in [0, 0.5), got {}",
                   a.epsilon);
  }
  PLAIDML_ASSIGN(a.reduction, c.get_string("reduction", "mean", {"mean", "sum", "none"}));
  return a;
}

// "none": the losses as they are; "sum": their total; "mean": total / count (scalars).
ValueId apply_reduction(OpCall& c, ValueId loss, const SymbolicDims& dims,
                        const std::string& reduction) {
  if (reduction == "none") return loss;
  AxisSet all(dims.size(), true);
  if (reduction == "sum") return reduce(c, ir::AggOp::kSum, loss, dims, all, false);
  return reduce_mean(c, loss, dims, all, false);
}

// Logits z: max(z, 0) - z t + log(1 + exp(-|z|)) (= -t log s(z) - (1-t) log(1 - s(z))).
// Probabilities p: -(t log p + (1 - t) log(1 - p)) with p clipped to [eps, 1 - eps].
Expected<ValueId> binary_crossentropy_op(OpCall& c) {
  PLAIDML_ASSIGN(LossArgs a, read_loss_args(c));
  ValueId t = c.operand(0);
  ValueId o = c.operand(1);
  ValueId loss;
  if (a.from_logits) {
    ValueId e = c.call("exp", {c.call("neg", {c.call("abs", {o})})});
    ValueId soft = c.call("log", {c.add(c.literal(1.0), e)});
    loss = c.add(c.sub(c.call("max", {o, c.literal(0.0)}), c.mul(o, t)), soft);
  } else {
    ValueId p = clip(c, o, a.epsilon, 1.0 - a.epsilon);
    ValueId one = c.literal(1.0);
    ValueId pos = c.mul(t, c.call("log", {p}));
    ValueId neg = c.mul(c.sub(one, t), c.call("log", {c.sub(one, p)}));
    loss = c.call("neg", {c.add(pos, neg)});
  }
  PLAIDML_ASSIGN(loss, c.finish(loss));
  PLAIDML_ASSIGN(SymbolicDims ld, c.dims_of_value(loss));
  return c.finish(apply_reduction(c, loss, ld, a.reduction));
}

// Per sample: -sum over `axis` of t * log p, with log p = log_softmax(logits) or
// log(clip(output, eps, 1 - eps)). The output is taken as normalised probabilities.
Expected<ValueId> categorical_crossentropy_op(OpCall& c) {
  PLAIDML_ASSIGN(LossArgs a, read_loss_args(c));
  PLAIDML_ASSIGN(int64_t ax, c.get_int("axis", -1));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(ax, a.dims.size(), "axis"));
  ValueId o = c.operand(1);
  ValueId log_p;
  if (a.from_logits) {
    SoftmaxParts parts = softmax_parts(c, o, a.dims, axis);
    log_p = c.sub(parts.shifted, c.call("log", {parts.sum}));
  } else {
    log_p = c.call("log", {clip(c, o, a.epsilon, 1.0 - a.epsilon)});
  }
  PLAIDML_ASSIGN(ValueId prod, c.finish(c.mul(c.operand(0), log_p)));
  PLAIDML_ASSIGN(SymbolicDims pd, c.dims_of_value(prod));
  ValueId sum = reduce(c, ir::AggOp::kSum, prod, pd, single_axis(pd.size(), axis), false);
  PLAIDML_ASSIGN(ValueId per_sample, c.finish(c.call("neg", {sum})));
  PLAIDML_ASSIGN(SymbolicDims sd, c.dims_of_value(per_sample));
  return c.finish(apply_reduction(c, per_sample, sd, a.reduction));
}

}  // namespace

std::vector<OpDef> loss_ops() {
  return {
      {"binary_crossentropy", {"target", "output"}, 2, binary_crossentropy_op},
      {"categorical_crossentropy", {"target", "output"}, 2, categorical_crossentropy_op},
  };
}

}  // namespace plaidml::oplib
