// Elementwise ONNX operators: arithmetic, comparisons, logic, math functions, activations, Cast.
// The converters live in ops_elementwise_{math,act,logic}.cc, import-time folding in
// ops_elementwise_fold.cc; this file holds the group's list and its shared helpers.
#include <cmath>
#include <limits>

#include "ops_elementwise_util.h"

namespace plaidml::onnx_import {

namespace elementwise {


bool is_float(plaidml_dtype d) { return dtype_is_float(d); }

void require_same_dtype(NodeContext& cx, size_t i, size_t j) {
  if (cx.dtype(i) != cx.dtype(j)) {
    invalid("inputs {} and {} must have one type, but are {} and {}", i, j,
            dtype_text(cx.dtype(i)), dtype_text(cx.dtype(j)));
  }
}

plaidml::Tensor cst(NodeContext& cx, plaidml_dtype dtype, double v) {
  return cx.constant(HostTensor::from_doubles(dtype, {}, {v}));
}

plaidml::Tensor cst_int(NodeContext& cx, plaidml_dtype dtype, int64_t v) {
  return cx.constant(HostTensor::from_ints(dtype, {}, {v}));
}

plaidml::Tensor cast_to(const plaidml::Tensor& t, plaidml_dtype dtype) {
  return cast_tensor(t, dtype);
}

plaidml::Tensor logical_and(const plaidml::Tensor& a, const plaidml::Tensor& b) { return a & b; }
plaidml::Tensor logical_or(const plaidml::Tensor& a, const plaidml::Tensor& b) { return a | b; }
plaidml::Tensor logical_not(const plaidml::Tensor& a) { return ~a; }  // ~ of a bool is not
plaidml::Tensor is_nan(const plaidml::Tensor& x) { return plaidml::isnan(x); }

plaidml::Tensor nan_max(const plaidml::Tensor& a, const plaidml::Tensor& b, plaidml_dtype dtype) {
  plaidml::Tensor r = plaidml::max(a, b);
  if (!is_float(dtype)) return r;
  r = plaidml::select(is_nan(a), a, r);
  return plaidml::select(is_nan(b), b, r);
}

plaidml::Tensor nan_min(const plaidml::Tensor& a, const plaidml::Tensor& b, plaidml_dtype dtype) {
  plaidml::Tensor r = plaidml::min(a, b);
  if (!is_float(dtype)) return r;
  r = plaidml::select(is_nan(a), a, r);
  return plaidml::select(is_nan(b), b, r);
}

plaidml::Tensor clip(const plaidml::Tensor& x, const plaidml::Tensor& lo,
                     const plaidml::Tensor& hi) {
  plaidml::Tensor t = plaidml::select(x < lo, lo, x);
  return plaidml::select(t > hi, hi, t);
}

// Kahan: with u = exp(x) rounded, (u - 1) * x / log(u) cancels the rounding error of u.
plaidml::Tensor expm1(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype) {
  plaidml::Tensor one = cst(cx, dtype, 1.0);
  plaidml::Tensor u = plaidml::exp(x);
  plaidml::Tensor um1 = u - one;
  plaidml::Tensor r = um1 * x / plaidml::log(u);
  r = plaidml::select(plaidml::eq(um1, cst(cx, dtype, -1.0)), um1, r);
  r = plaidml::select(plaidml::eq(u, cst(cx, dtype, INFINITY)), u, r);
  return plaidml::select(plaidml::eq(u, one), x, r);
}

// Goldberg: with u = 1 + x rounded, log(u) * x / (u - 1) cancels the rounding error of u.
plaidml::Tensor log1p(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype) {
  plaidml::Tensor one = cst(cx, dtype, 1.0);
  plaidml::Tensor u = x + one;
  plaidml::Tensor r = plaidml::log(u) * x / (u - one);
  r = plaidml::select(plaidml::eq(u, cst(cx, dtype, INFINITY)), u, r);
  r = plaidml::select(plaidml::eq(u, cst(cx, dtype, 0.0)), plaidml::log(u), r);
  r = plaidml::select(plaidml::eq(u, one), x, r);
  // Near 0 the series x - x^2/2 + x^3/3 (error below x^4/4): GPU logs have an absolute error
  // near 1 (lavapipe's about 5e-7), which Kahan's ratio turns into a relative one of 1e-2 at
  // x = 5e-5, where softplus and mish of large negative inputs live.
  plaidml::Tensor series = x * (one - x * (cst(cx, dtype, 0.5) - x / cst(cx, dtype, 3.0)));
  return plaidml::select(plaidml::abs(x) < cst(cx, dtype, 1e-3), series, r);
}

// max(x, 0) + log1p(exp(-|x|)): exp never overflows.
plaidml::Tensor softplus(NodeContext& cx, const plaidml::Tensor& x, plaidml_dtype dtype) {
  return plaidml::relu(x) + log1p(cx, plaidml::exp(-plaidml::abs(x)), dtype);
}


}  // namespace elementwise

std::vector<ConverterEntry> elementwise_converters() {
  std::vector<ConverterEntry> all;
  for (auto group : {elementwise::math_converters, elementwise::act_converters,
                     elementwise::logic_converters}) {
    auto entries = group();
    all.insert(all.end(), entries.begin(), entries.end());
  }
  return all;
}

}  // namespace plaidml::onnx_import
