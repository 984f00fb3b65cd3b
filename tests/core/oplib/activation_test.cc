// Activations and softmax against formulas evaluated in plain C++ in the test.
#include <cmath>
#include <functional>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using plaidml::testing::random_tensor;

const std::vector<double> kValues = {-30, -3, -1.5, -1, -0.25, 0, 0.2, 0.5, 1, 2, 4.5, 30};

// op applied to kValues (shape [3, 4]) and to a random [2, 1, 5] tensor in [-4, 4), in f32 and
// f64, compared with `f` applied elementwise.
void check_unary(const std::string& op, const std::function<double(double)>& f,
                 const Attrs& attrs = {}) {
  for (DType dtype : {DType::F32, DType::F64}) {
    for (const HostTensor& x : {make_tensor(dtype, {3, 4}, kValues),
                                random_tensor(Shape(dtype, {2, 1, 5}), 5, {.lo = -4, .hi = 4})}) {
      std::vector<double> want = to_doubles(x);
      for (double& v : want) v = f(v);
      INFO(op, " ", x.shape.to_string());
      check_tensor(run_ok(op, {{"X", x}}, attrs), make_tensor(dtype, x.shape.dims, want));
    }
  }
}

double keras_relu(double x, double alpha, std::optional<double> max_value, double threshold) {
  if (max_value && x >= *max_value) return *max_value;
  if (x >= threshold) return x;
  return alpha * (x - threshold);
}

}  // namespace

TEST_CASE("relu: plain, leaky, capped, thresholded") {
  check_unary("relu", [](double x) { return x > 0 ? x : 0; });
  check_unary("relu", [](double x) { return keras_relu(x, 0.1, std::nullopt, 0); },
              {{"alpha", 0.1}});
  check_unary("relu", [](double x) { return keras_relu(x, 0, 6.0, 0); }, {{"max_value", 6.0}});
  check_unary("relu", [](double x) { return keras_relu(x, 0, std::nullopt, 0.5); },
              {{"threshold", 0.5}});
  check_unary("relu", [](double x) { return keras_relu(x, 0.3, 2.0, -1.0); },
              {{"alpha", 0.3}, {"max_value", int64_t{2}}, {"threshold", -1.0}});
  check_tensor(run_ok("relu", {{"X", i32({4}, {-2, 0, 3, 9})}}, {{"max_value", int64_t{6}}}),
               i32({4}, {0, 0, 3, 6}));
}

TEST_CASE("sigmoid, tanh, elu, hard_sigmoid, softplus") {
  check_unary("sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); });
  check_unary("tanh", [](double x) { return std::tanh(x); });
  check_unary("elu", [](double x) { return x > 0 ? x : std::expm1(x); });
  check_unary("elu", [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); }, {{"alpha", 0.5}});
  check_unary("hard_sigmoid", [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); });
  check_unary("hard_sigmoid", [](double x) { return std::clamp(0.5 * x - 0.25, 0.0, 1.0); },
              {{"alpha", 0.5}, {"beta", -0.25}});
  check_unary("softplus", [](double x) { return std::log1p(std::exp(x)); });
  // Large magnitudes: no overflow to inf, no loss to 0 - inf.
  check_tensor(run_ok("softplus", {{"X", f32({4}, {-1000, -100, 100, 1000})}}),
               f32({4}, {0, std::exp(-100.0), 100, 1000}));
  check_tensor(run_ok("elu", {{"X", f32({2}, {-1000, 1000})}}), f32({2}, {-1, 1000}));
}

TEST_CASE("gelu: erf form and tanh approximation") {
  check_unary("gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  check_unary("gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); },
              {{"approximate", std::string("none")}});
  check_unary("gelu",
              [](double x) {
                double k = std::sqrt(2 / M_PI);
                return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
              },
              {{"approximate", std::string("tanh")}});
  check_tensor(run_ok("gelu", {{"X", f32({3}, {-1, 0, 1})}}),
               f32({3}, {-0.15865525393145707, 0, 0.8413447460685429}));
}

TEST_CASE("clip: both bounds, one bound, none, integers") {
  check_unary("clip", [](double x) { return std::clamp(x, -1.0, 2.0); },
              {{"min", -1.0}, {"max", 2.0}});
  check_unary("clip", [](double x) { return std::max(x, 0.5); }, {{"min", 0.5}});
  check_unary("clip", [](double x) { return std::min(x, -0.5); }, {{"max", -0.5}});
  check_unary("clip", [](double x) { return x; });
  check_unary("clip", [](double) { return 1.0; }, {{"min", 1.0}, {"max", 1.0}});
  check_tensor(
      run_ok("clip", {{"X", i32({4}, {-9, 0, 3, 9})}}, {{"min", int64_t{-2}}, {"max", int64_t{5}}}),
      i32({4}, {-2, 0, 3, 5}));
}

namespace {

// softmax / log_softmax over `axis` by a naive loop (with the max subtracted, in double).
std::vector<double> naive_softmax(const std::vector<int64_t>& dims, const std::vector<double>& v,
                                  int64_t axis, bool log) {
  int64_t n = dims[axis], inner = 1;
  for (size_t k = axis + 1; k < dims.size(); ++k) inner *= dims[k];
  int64_t outer = static_cast<int64_t>(v.size()) / (n * inner);
  std::vector<double> r(v.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, v[at(j)]);
      for (int64_t j = 0; j < n; ++j) s += std::exp(v[at(j)] - m);
      for (int64_t j = 0; j < n; ++j) {
        r[at(j)] = log ? v[at(j)] - m - std::log(s) : std::exp(v[at(j)] - m) / s;
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("softmax / log_softmax: every axis (positive and negative)") {
  for (bool log : {false, true}) {
    std::string op = log ? "log_softmax" : "softmax";
    for (std::vector<int64_t> dims : {std::vector<int64_t>{7}, {2, 3}, {1, 4, 1}, {3, 2, 5}}) {
      auto rank = static_cast<int64_t>(dims.size());
      HostTensor x = random_tensor(Shape(DType::F32, dims), 11, {.lo = -5, .hi = 5});
      for (int64_t a = 0; a < rank; ++a) {
        auto want = naive_softmax(dims, to_doubles(x), a, log);
        INFO(op, " axis ", a);
        check_tensor(run_ok(op, {{"X", x}}, {{"axis", a}}), f32(dims, want));
        check_tensor(run_ok(op, {{"X", x}}, {{"axis", a - rank}}), f32(dims, want));
      }
    }
  }
}

TEST_CASE("softmax / log_softmax: default axis -1, large magnitudes") {
  HostTensor x = f32({2, 3}, {1000, 1001, 1002, -1000, -1000, -1000});
  double e1 = std::exp(-1.0), e2 = std::exp(-2.0), s = 1 + e1 + e2;
  check_tensor(run_ok("softmax", {{"X", x}}),
               f32({2, 3}, {e2 / s, e1 / s, 1 / s, 1.0 / 3, 1.0 / 3, 1.0 / 3}));
  double l = std::log(s), t = std::log(3.0);
  check_tensor(run_ok("log_softmax", {{"X", x}}), f32({2, 3}, {-2 - l, -1 - l, -l, -t, -t, -t}));
  check_tensor(run_ok("log_softmax", {{"X", f64({2}, {0, 2000})}}), f64({2}, {-2000, 0}));
}

TEST_CASE("softmax takes one exp per element: exp(x - max) / sum, no log") {
  // exp(x - max - log(sum)) would take exp twice per element (the sum's, then the result's).
  auto occurrences = [](const std::string& text, const std::string& word) {
    int n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  OpRun r = run_op("softmax", {{"X", f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  REQUIRE(r.status.is_ok());
  CAPTURE(r.tile);
  CHECK(occurrences(r.tile, "exp(") == 1);
  CHECK(occurrences(r.tile, "log(") == 0);
  OpRun l = run_op("log_softmax", {{"X", f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  REQUIRE(l.status.is_ok());
  CAPTURE(l.tile);
  CHECK(occurrences(l.tile, "log(") == 1);
}

TEST_CASE("activations: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_op_error("clip", {{"X", x}}, {{"min", 2.0}, {"max", 1.0}}, StatusCode::kInvalidArgument,
                 "clip: attribute 'min' (2) must not be greater than attribute 'max' (1)");
  check_op_error("clip", {{"X", x}}, {{"min", std::string("a")}}, StatusCode::kInvalidArgument,
                 "clip: attribute 'min' must be a number, not a string");
  check_op_error("gelu", {{"X", x}}, {{"approximate", std::string("fast")}},
                 StatusCode::kInvalidArgument,
                 "gelu: attribute 'approximate' must be none or tanh, got 'fast'");
  check_op_error("softmax", {{"X", x}}, {{"axis", int64_t{2}}}, StatusCode::kTypeError,
                 "softmax: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("log_softmax", {{"X", x}}, {{"axis", int64_t{-3}}}, StatusCode::kTypeError,
                 "log_softmax: attribute 'axis' is -3, out of range for rank 2");
  check_op_error("softmax", {{"X", f32({}, {1})}}, {}, StatusCode::kTypeError,
                 "softmax: attribute 'axis' is -1, out of range for rank 0");
  check_op_error("relu", {{"X", x}}, {{"max_value", std::vector<int64_t>{1}}},
                 StatusCode::kInvalidArgument,
                 "relu: attribute 'max_value' must be a number, not a list of integers");
  check_op_error("elu", {{"X", x}}, {{"beta", 1.0}}, StatusCode::kInvalidArgument,
                 "elu: unknown attribute 'beta'");
  check_op_error("sigmoid", {{"X", x}}, {{"alpha", 1.0}}, StatusCode::kInvalidArgument,
                 "sigmoid: unknown attribute 'alpha'");
  check_op_error("hard_sigmoid", {{"X", x}}, {{"alpha", std::string("x")}},
                 StatusCode::kInvalidArgument,
                 "hard_sigmoid: attribute 'alpha' must be a number, not a string");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

TEST_CASE("activations: f16 and bf16 inputs") {
  for (DType dtype : {DType::F16, DType::BF16}) {
    HostTensor x = make_tensor(dtype, {2, 3}, {-2, -0.5, 0, 0.5, 1, 3});
    auto v = to_doubles(x);
    auto apply_each = [&](double (*f)(double)) {
      std::vector<double> r = v;
      for (double& e : r) e = f(e);
      return make_tensor(dtype, {2, 3}, r);
    };
    check_tensor(run_ok("softplus", {{"X", x}}),
                 apply_each([](double e) { return std::log1p(std::exp(e)); }));
    check_tensor(run_ok("gelu", {{"X", x}}),
                 apply_each([](double e) { return 0.5 * e * (1 + std::erf(e / std::sqrt(2.0))); }));
    check_tensor(run_ok("elu", {{"X", x}}),
                 apply_each([](double e) { return e > 0 ? e : std::expm1(e); }));
    check_tensor(run_ok("softmax", {{"X", x}}, {{"axis", int64_t{0}}}),
                 make_tensor(dtype, {2, 3}, naive_softmax({2, 3}, v, 0, false)));
  }
}

}  // namespace plaidml::oplib::test
