// Elementwise activations (relu sigmoid tanh elu gelu hard_sigmoid softplus clip) and softmax /
// log_softmax over one axis. Written in numerically stable forms: softplus never takes exp of a
// positive number, softmax subtracts the max over its axis first.
#include <cmath>
#include <numbers>

#include "core/oplib/op_call.h"
#include "core/oplib/reduce_util.h"

namespace plaidml::oplib {
namespace {

// A float attribute with no default: nullopt when absent.
Expected<std::optional<double>> optional_float(OpCall& c, std::string_view name) {
  if (!c.has_attr(name)) return std::optional<double>();
  PLAIDML_ASSIGN(double v, c.get_float(name, std::nullopt));
  return std::optional<double>(v);
}

// Keras relu: x >= max_value -> max_value; threshold <= x < max_value -> x;
// otherwise alpha * (x - threshold).
Expected<ValueId> relu_op(OpCall& c) {
  PLAIDML_ASSIGN(double alpha, c.get_float("alpha", 0.0));
  PLAIDML_ASSIGN(double threshold, c.get_float("threshold", 0.0));
  PLAIDML_ASSIGN(std::optional<double> max_value, optional_float(c, "max_value"));
  ValueId x = c.operand(0);
  ValueId y;
  if (alpha == 0.0 && threshold == 0.0) {
    y = c.call("relu", {x});
  } else {
    ValueId t = number(c, threshold);
    ValueId below = alpha == 0.0 ? c.literal(0.0) : c.mul(number(c, alpha), c.sub(x, t));
    y = c.call("select", {c.call("cmp_ge", {x, t}), x, below});
  }
  if (max_value) {
    ValueId m = number(c, *max_value);
    y = c.call("select", {c.call("cmp_ge", {x, m}), m, y});
  }
  return c.finish(y);
}

template <const char* kFunction>
Expected<ValueId> unary_op(OpCall& c) {
  return c.finish(c.call(kFunction, {c.operand(0)}));
}
constexpr char kSigmoid[] = "sigmoid";
constexpr char kTanh[] = "tanh";

// x for x > 0, alpha * (exp(x) - 1) otherwise; exp only sees x <= 0, so it cannot overflow.
Expected<ValueId> elu_op(OpCall& c) {
  PLAIDML_ASSIGN(double alpha, c.get_float("alpha", 1.0));
  ValueId x = c.operand(0);
  ValueId e = c.call("exp", {c.call("min", {x, c.literal(0.0)})});
  ValueId neg = c.mul(c.literal(alpha), c.sub(e, c.literal(1.0)));
  return c.finish(c.call("select", {c.call("cmp_gt", {x, c.literal(0.0)}), x, neg}));
}

// 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Expected<ValueId> gelu_op(OpCall& c) {
  PLAIDML_ASSIGN(std::string approximate, c.get_string("approximate", "none", {"none", "tanh"}));
  ValueId x = c.operand(0);
  ValueId inner;
  if (approximate == "none") {
    inner = c.call("erf", {c.mul(x, c.literal(1.0 / std::numbers::sqrt2))});
  } else {
    ValueId x3 = c.mul(c.mul(x, x), x);
    ValueId poly = c.add(x, c.mul(c.literal(0.044715), x3));
    inner = c.call("tanh", {c.mul(c.literal(std::sqrt(2.0 / std::numbers::pi)), poly)});
  }
  ValueId half_x = c.mul(c.literal(0.5), x);
  return c.finish(c.mul(half_x, c.add(c.literal(1.0), inner)));
}

Expected<ValueId> hard_sigmoid_op(OpCall& c) {
  PLAIDML_ASSIGN(double alpha, c.get_float("alpha", 0.2));
  PLAIDML_ASSIGN(double beta, c.get_float("beta", 0.5));
  ValueId lin = c.add(c.mul(c.literal(alpha), c.operand(0)), c.literal(beta));
  return c.finish(clip(c, lin, 0.0, 1.0));
}

// max(x, 0) + log(1 + exp(-|x|)): exp's argument is never positive.
Expected<ValueId> softplus_op(OpCall& c) {
  ValueId x = c.operand(0);
  ValueId e = c.call("exp", {c.call("neg", {c.call("abs", {x})})});
  ValueId tail = c.call("log", {c.add(c.literal(1.0), e)});
  return c.finish(c.add(c.call("max", {x, c.literal(0.0)}), tail));
}

Expected<ValueId> clip_op(OpCall& c) {
  PLAIDML_ASSIGN(std::optional<double> lo, optional_float(c, "min"));
  PLAIDML_ASSIGN(std::optional<double> hi, optional_float(c, "max"));
  if (lo && hi && *lo > *hi) {
    return c.error(StatusCode::kInvalidArgument,
                   "attribute 'min' ({}) must not be greater than attribute 'max' ({})", *lo, *hi);
  }
  ValueId y = c.operand(0);
  if (hi) y = c.call("min", {y, number(c, *hi)});
  if (lo) y = c.call("max", {y, number(c, *lo)});
  return c.finish(y);
}

template <bool kLog>
Expected<ValueId> softmax_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims dims, c.dims(0));
  PLAIDML_ASSIGN(int64_t a, c.get_int("axis", -1));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(a, dims.size(), "axis"));
  SoftmaxParts parts = softmax_parts(c, c.operand(0), dims, axis);
  // softmax: exp(shifted) / sum, not exp(shifted - log_sum), which takes exp twice per element;
  // and as exp(shifted) * (1 / sum), one division per row instead of one per element (within
  // 1.5 ulp of the quotient).
  if (kLog) return c.finish(c.sub(parts.shifted, c.call("log", {parts.sum})));
  return c.finish(c.mul(parts.exp, c.call("recip", {parts.sum})));
}

}  // namespace

std::vector<OpDef> activation_ops() {
  return {
      {"relu", {"input"}, 1, relu_op},
      {"sigmoid", {"input"}, 1, unary_op<kSigmoid>},
      {"tanh", {"input"}, 1, unary_op<kTanh>},
      {"elu", {"input"}, 1, elu_op},
      {"gelu", {"input"}, 1, gelu_op},
      {"hard_sigmoid", {"input"}, 1, hard_sigmoid_op},
      {"softplus", {"input"}, 1, softplus_op},
      {"clip", {"input"}, 1, clip_op},
      {"softmax", {"input"}, 1, softmax_op<false>},
      {"log_softmax", {"input"}, 1, softmax_op<true>},
  };
}

}  // namespace plaidml::oplib
