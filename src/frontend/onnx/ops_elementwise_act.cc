// Activations: Relu Sigmoid Tanh LeakyRelu Elu Selu Celu PRelu HardSigmoid HardSwish Softplus
// Softsign Gelu Mish ThresholdedRelu Swish Shrink. Formulas of several steps compute f16 and bf16
// in f32 and round once at the end (as onnx's reference does with its f32 attributes): rounding
// every step to f16 loses whole digits (1 + erf(x) near -1, alpha * x + beta near 0).
#include <cmath>

#include "ops_elementwise_util.h"

namespace plaidml::onnx_import::elementwise {
namespace {

// Checks the attributes and the float input; returns its dtype.
plaidml_dtype float_input(NodeContext& cx, const std::vector<std::string>& attrs) {
  cx.check_attrs(attrs);
  cx.require_dtype(0, float_types());
  return cx.dtype(0);
}

// The dtype a formula computes in: f32 for the 16-bit floats, else the input's.
plaidml_dtype compute_dtype(plaidml_dtype d) {
  return d == PLAIDML_DTYPE_FLOAT16 || d == PLAIDML_DTYPE_BFLOAT16 ? PLAIDML_DTYPE_FLOAT32 : d;
}

// Input 0 in the compute dtype.
plaidml::Tensor widened(NodeContext& cx) {
  plaidml_dtype d = cx.dtype(0), c = compute_dtype(d);
  return c == d ? cx.tensor(0) : cast_to(cx.tensor(0), c);
}

// Sets output 0 to r (computed in compute_dtype(d)) rounded to d.
void set_narrowed(NodeContext& cx, const plaidml::Tensor& r, plaidml_dtype d) {
  cx.set_output(0, compute_dtype(d) == d ? r : cast_to(r, d), d);
}

void convert_relu(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, concat_types(float_types(), signed_types()));
  cx.set_output(0, plaidml::relu(cx.tensor(0)), cx.dtype(0));
}

void convert_sigmoid(NodeContext& cx) {
  plaidml_dtype d = float_input(cx, {});
  cx.set_output(0, plaidml::sigmoid(cx.tensor(0)), d);
}

void convert_tanh(NodeContext& cx) {
  plaidml_dtype d = float_input(cx, {});
  cx.set_output(0, plaidml::tanh(cx.tensor(0)), d);
}

void convert_leaky_relu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha"});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  plaidml::Tensor a = cst(cx, d, cx.attr_float("alpha", 0.01));
  set_narrowed(cx, plaidml::select(x > cst(cx, d, 0.0), x, x * a), out);
}

// alpha * (exp(x) - 1) for x <= 0, else x.
plaidml::Tensor elu(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype d, double alpha) {
  return plaidml::select(x > cst(cx, d, 0.0), x, cst(cx, d, alpha) * expm1(cx, x, d));
}

void convert_elu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha"});
  plaidml_dtype d = compute_dtype(out);
  set_narrowed(cx, elu(cx, widened(cx), d, cx.attr_float("alpha", 1.0)), out);
}

void convert_selu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha", "gamma"});
  plaidml_dtype d = compute_dtype(out);
  double alpha = cx.attr_float("alpha", 1.67326319217681884765625);
  double gamma = cx.attr_float("gamma", 1.05070102214813232421875);
  set_narrowed(cx, elu(cx, widened(cx), d, alpha) * cst(cx, d, gamma), out);
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) is x for x > 0 and the second term
// otherwise, for either sign of alpha (NaN stays NaN).
void convert_celu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha"});
  plaidml_dtype d = compute_dtype(out);
  double alpha = cx.attr_float("alpha", 1.0);
  if (alpha == 0) invalid("attribute 'alpha' must not be 0");
  plaidml::Tensor x = widened(cx);
  plaidml::Tensor a = cst(cx, d, alpha);
  plaidml::Tensor neg = a * expm1(cx, x / a, d);
  set_narrowed(cx, plaidml::select(x > cst(cx, d, 0.0), x, neg), out);
}

// PRelu: the slope broadcasts to x (unidirectionally).
void convert_prelu(NodeContext& cx) {
  cx.check_attrs({});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, numeric_types());
  plaidml_dtype d = cx.dtype(0);
  if (cx.rank(1) > cx.rank(0)) invalid("slope has rank {}, above the input's {}", cx.rank(1), cx.rank(0));
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor zero = is_float(d) ? cst(cx, d, 0.0) : cst_int(cx, d, 0);
  cx.set_output(0, plaidml::select(x > zero, x, x * cx.tensor(1)), d);
}

// max(0, min(1, alpha * x + beta)), NaN preserved.
plaidml::Tensor hard_sigmoid(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype d,
                             double alpha, double beta) {
  plaidml::Tensor y = x * cst(cx, d, alpha) + cst(cx, d, beta);
  return clip(y, cst(cx, d, 0.0), cst(cx, d, 1.0));
}

void convert_hard_sigmoid(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha", "beta"});
  plaidml_dtype d = compute_dtype(out);
  double alpha = cx.attr_float("alpha", 0.2), beta = cx.attr_float("beta", 0.5);
  set_narrowed(cx, hard_sigmoid(cx, widened(cx), d, alpha, beta), out);
}

void convert_hard_swish(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  set_narrowed(cx, x * hard_sigmoid(cx, x, d, 1.0 / 6.0, 0.5), out);
}

void convert_softplus(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {});
  plaidml_dtype d = compute_dtype(out);
  set_narrowed(cx, softplus(cx, widened(cx), d), out);
}

void convert_softsign(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  set_narrowed(cx, x / (cst(cx, d, 1.0) + plaidml::abs(x)), out);
}

void convert_gelu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"approximate"});
  plaidml_dtype d = compute_dtype(out);
  std::string approx = cx.attr_string("approximate", "none");
  plaidml::Tensor x = widened(cx);
  plaidml::Tensor half = cst(cx, d, 0.5), one = cst(cx, d, 1.0);
  if (approx != "none" && approx != "tanh") {
    invalid("attribute 'approximate' must be 'none' or 'tanh', not '{}'", approx);
  }
  plaidml::Tensor inner =
      approx == "none"
          ? plaidml::erf(x * cst(cx, d, M_SQRT1_2))
          : plaidml::tanh(cst(cx, d, std::sqrt(2.0 / M_PI)) *
                          (x + cst(cx, d, 0.044715) * (x * x * x)));
  set_narrowed(cx, half * x * (one + inner), out);
}

void convert_mish(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  set_narrowed(cx, x * plaidml::tanh(softplus(cx, x, d)), out);
}

void convert_thresholded_relu(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha"});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  plaidml::Tensor alpha = cst(cx, d, cx.attr_float("alpha", 1.0));
  set_narrowed(cx, plaidml::select(x > alpha, x, cst(cx, d, 0.0)), out);
}

void convert_swish(NodeContext& cx) {
  plaidml_dtype out = float_input(cx, {"alpha"});
  plaidml_dtype d = compute_dtype(out);
  plaidml::Tensor x = widened(cx);
  set_narrowed(cx, x * plaidml::sigmoid(cst(cx, d, cx.attr_float("alpha", 1.0)) * x), out);
}

// Shrink: x + bias below -lambd, x - bias above lambd, else 0. Integers compute in f64 and
// truncate back, as the reference does (numpy promotes them with the float attributes); 16-bit
// floats compute in f32.
void convert_shrink(NodeContext& cx) {
  cx.check_attrs({"bias", "lambd"});
  cx.require_dtype(0, numeric_types());
  plaidml_dtype d = cx.dtype(0);
  plaidml_dtype c = is_float(d) ? compute_dtype(d) : PLAIDML_DTYPE_FLOAT64;
  double bias = cx.attr_float("bias", 0.0), lambd = cx.attr_float("lambd", 0.5);
  plaidml::Tensor x = cast_to(cx.tensor(0), c);
  plaidml::Tensor b = cst(cx, c, bias);
  plaidml::Tensor r = plaidml::select(x > cst(cx, c, lambd), x - b, cst(cx, c, 0.0));
  r = plaidml::select(x < cst(cx, c, -lambd), x + b, r);
  cx.set_output(0, c == d ? r : cast_to(r, d), d);
}

}  // namespace

std::vector<ConverterEntry> act_converters() {
  return {
      {"Relu", {6, 13, 14}, convert_relu},
      {"Sigmoid", {6, 13}, convert_sigmoid},
      {"Tanh", {6, 13}, convert_tanh},
      {"LeakyRelu", {6, 16}, convert_leaky_relu},
      {"Elu", {6, 22}, convert_elu},
      {"Selu", {6, 22}, convert_selu},
      {"Celu", {12, 28}, convert_celu},
      {"PRelu", {7, 9, 16}, convert_prelu},
      {"HardSigmoid", {6, 22}, convert_hard_sigmoid},
      {"HardSwish", {14, 22}, convert_hard_swish},
      {"Softplus", {1, 22}, convert_softplus},
      {"Softsign", {1, 22}, convert_softsign},
      {"Gelu", {20}, convert_gelu},
      {"Mish", {18, 22}, convert_mish},
      {"ThresholdedRelu", {10, 22}, convert_thresholded_relu},
      {"Swish", {24}, convert_swish},
      {"Shrink", {9}, convert_shrink},
  };
}

}  // namespace plaidml::onnx_import::elementwise
