// Cross-entropy losses against formulas evaluated in plain C++ (double) in the test.
#include <algorithm>
#include <cmath>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using plaidml::testing::random_tensor;

// The clip bounds as the f32 tensors see them (1 - 1e-7 rounds to 1 - 2^-23 in f32).
double lo_f32(double eps) { return static_cast<float>(eps); }
double hi_f32(double eps) { return static_cast<float>(1 - eps); }

double bce_prob(double t, double p, double eps) {
  p = std::clamp(p, lo_f32(eps), hi_f32(eps));
  return -(t * std::log(p) + (1 - t) * std::log(1 - p));
}
// -t log s(z) - (1-t) log(1 - s(z)) with log s(z) = -log1p(exp(-z)) (stable for the test range).
double bce_logit(double t, double z) {
  auto log_sig = [](double v) {
    return v > 0 ? -std::log1p(std::exp(-v)) : v - std::log1p(std::exp(v));
  };
  return -t * log_sig(z) - (1 - t) * log_sig(-z);
}

double total(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

void check_reductions(const std::string& op, const std::vector<Input>& in, Attrs attrs,
                      const std::vector<int64_t>& none_dims, const std::vector<double>& per) {
  INFO(op);
  attrs["reduction"] = std::string("none");
  check_tensor(run_ok(op, in, attrs), f32(none_dims, per));
  attrs["reduction"] = std::string("sum");
  check_tensor(run_ok(op, in, attrs), f32({}, {total(per)}));
  attrs["reduction"] = std::string("mean");
  check_tensor(run_ok(op, in, attrs), f32({}, {total(per) / per.size()}));
  attrs.erase("reduction");
  check_tensor(run_ok(op, in, attrs), f32({}, {total(per) / per.size()}));
}

}  // namespace

TEST_CASE("binary_crossentropy: probabilities and logits, every reduction") {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{5}, {2, 3}, {3, 1, 2}}) {
    HostTensor t = random_tensor(Shape(DType::F32, dims), 1, {.lo = 0, .hi = 1});
    HostTensor p = random_tensor(Shape(DType::F32, dims), 2, {.lo = 0.01, .hi = 0.99});
    HostTensor z = random_tensor(Shape(DType::F32, dims), 3, {.lo = -6, .hi = 6});
    auto tv = to_doubles(t), pv = to_doubles(p), zv = to_doubles(z);
    std::vector<double> per_p, per_z;
    for (size_t i = 0; i < tv.size(); ++i) {
      per_p.push_back(bce_prob(tv[i], pv[i], 1e-7));
      per_z.push_back(bce_logit(tv[i], zv[i]));
    }
    check_reductions("binary_crossentropy", {{"T", t}, {"O", p}}, {}, dims, per_p);
    check_reductions("binary_crossentropy", {{"T", t}, {"O", z}}, {{"from_logits", int64_t{1}}},
                     dims, per_z);
  }
}

TEST_CASE("binary_crossentropy: clipping, epsilon, large logits") {
  HostTensor t = f32({4}, {1, 0, 1, 0});
  HostTensor p = f32({4}, {0, 1, 1, 0});
  std::vector<double> want{bce_prob(1, 0, 1e-7), bce_prob(0, 1, 1e-7), bce_prob(1, 1, 1e-7),
                           bce_prob(0, 0, 1e-7)};
  check_tensor(
      run_ok("binary_crossentropy", {{"T", t}, {"O", p}}, {{"reduction", std::string("none")}}),
      f32({4}, want));
  check_tensor(run_ok("binary_crossentropy", {{"T", t}, {"O", p}},
                      {{"reduction", std::string("none")}, {"epsilon", 0.1}}),
               f32({4}, {-std::log(0.1), -std::log(0.1), -std::log(0.9), -std::log(0.9)}));
  HostTensor z = f32({4}, {-1000, 1000, 1000, -100});
  check_tensor(run_ok("binary_crossentropy", {{"T", t}, {"O", z}},
                      {{"reduction", std::string("none")}, {"from_logits", int64_t{1}}}),
               f32({4}, {1000, 1000, 0, 0}));
  // Broadcasting target against output.
  check_tensor(run_ok("binary_crossentropy",
                      {{"T", f32({1, 2}, {1, 0})}, {"O", f32({2, 2}, {0.5, 0.5, 0.25, 0.75})}},
                      {{"reduction", std::string("none")}}),
               f32({2, 2}, {std::log(2.0), std::log(2.0), std::log(4.0), std::log(4.0)}));
}

namespace {

// Per-sample categorical cross-entropy over `axis` of a rank-2 or rank-3 [a, b(, c)] tensor.
std::vector<double> naive_cce(const std::vector<int64_t>& dims, const std::vector<double>& t,
                              const std::vector<double>& o, int64_t axis, bool logits, double eps) {
  int64_t n = dims[axis], inner = 1;
  for (size_t k = axis + 1; k < dims.size(); ++k) inner *= dims[k];
  int64_t outer = static_cast<int64_t>(t.size()) / (n * inner);
  std::vector<double> r;
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (a * n + j) * inner + i; };
      double m = -INFINITY, s = 0, loss = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, o[at(j)]);
      for (int64_t j = 0; j < n; ++j) s += std::exp(o[at(j)] - m);
      for (int64_t j = 0; j < n; ++j) {
        double lp = logits ? o[at(j)] - m - std::log(s)
                           : std::log(std::clamp(o[at(j)], lo_f32(eps), hi_f32(eps)));
        loss -= t[at(j)] * lp;
      }
      r.push_back(loss);
    }
  }
  return r;
}

}  // namespace

TEST_CASE("categorical_crossentropy: probabilities and logits, every axis and reduction") {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{4}, {3, 4}, {2, 3, 5}, {1, 3, 1}}) {
    auto rank = static_cast<int64_t>(dims.size());
    HostTensor t = random_tensor(Shape(DType::F32, dims), 4, {.lo = 0, .hi = 1});
    HostTensor p = random_tensor(Shape(DType::F32, dims), 5, {.lo = 0.01, .hi = 0.99});
    HostTensor z = random_tensor(Shape(DType::F32, dims), 6, {.lo = -8, .hi = 8});
    for (int64_t a = 0; a < rank; ++a) {
      std::vector<int64_t> sd = dims;
      sd.erase(sd.begin() + a);
      auto per_p = naive_cce(dims, to_doubles(t), to_doubles(p), a, false, 1e-7);
      auto per_z = naive_cce(dims, to_doubles(t), to_doubles(z), a, true, 1e-7);
      INFO("axis ", a);
      check_reductions("categorical_crossentropy", {{"T", t}, {"O", p}}, {{"axis", a}}, sd, per_p);
      check_reductions("categorical_crossentropy", {{"T", t}, {"O", z}},
                       {{"axis", a - rank}, {"from_logits", int64_t{1}}}, sd, per_z);
    }
  }
}

TEST_CASE("categorical_crossentropy: hand-computed, clipping, large logits") {
  HostTensor t = f32({2, 3}, {0, 1, 0, 0, 0, 1});
  HostTensor p = f32({2, 3}, {0.2, 0.5, 0.3, 0.5, 0.5, 0});
  check_tensor(run_ok("categorical_crossentropy", {{"T", t}, {"O", p}},
                      {{"reduction", std::string("none")}}),
               f32({2}, {std::log(2.0), -std::log(1e-7)}));
  check_tensor(run_ok("categorical_crossentropy", {{"T", t}, {"O", p}},
                      {{"reduction", std::string("none")}, {"epsilon", 0.01}}),
               f32({2}, {std::log(2.0), -std::log(0.01)}));
  HostTensor z = f32({2, 3}, {1000, 1000, -1000, 0, 0, -2000});
  check_tensor(run_ok("categorical_crossentropy", {{"T", t}, {"O", z}},
                      {{"reduction", std::string("none")}, {"from_logits", int64_t{1}}}),
               f32({2}, {std::log(2.0), 2000 + std::log(2.0)}));
}

TEST_CASE("losses: errors") {
  HostTensor x = f32({2, 3}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6});
  for (std::string op : {"binary_crossentropy", "categorical_crossentropy"}) {
    check_op_error(op, {{"T", x}, {"O", f32({6}, {1, 1, 1, 1, 1, 1})}}, {}, StatusCode::kTypeError,
                   op + ": argument 'output' must have rank 2, but it has rank 1");
    check_op_error(op, {{"T", x}, {"O", x}}, {{"reduction", std::string("avg")}},
                   StatusCode::kInvalidArgument,
                   op + ": attribute 'reduction' must be mean, sum or none, got 'avg'");
    check_op_error(op, {{"T", x}, {"O", x}}, {{"from_logits", int64_t{3}}},
                   StatusCode::kInvalidArgument,
                   op + ": attribute 'from_logits' must be 0 or 1, got 3");
    check_op_error(op, {{"T", x}, {"O", x}}, {{"epsilon", 0.5}}, StatusCode::kInvalidArgument,
                   op + ": attribute 'epsilon' must be in [0, 0.5), got 0.5");
    check_op_error(op, {{"T", x}, {"O", x}}, {{"epsilon", -1.0}}, StatusCode::kInvalidArgument,
                   op + ": attribute 'epsilon' must be in [0, 0.5), got -1");
    check_op_error(op, {{"T", x}}, {}, StatusCode::kInvalidArgument,
                   op + ": takes 2 operands (target, output), got 1");
  }
  check_op_error("categorical_crossentropy", {{"T", x}, {"O", x}}, {{"axis", int64_t{2}}},
                 StatusCode::kTypeError,
                 "categorical_crossentropy: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("categorical_crossentropy", {{"T", f32({}, {1})}, {"O", f32({}, {1})}}, {},
                 StatusCode::kTypeError,
                 "categorical_crossentropy: attribute 'axis' is -1, out of range for rank 0");
  check_op_error("binary_crossentropy", {{"T", x}, {"O", x}}, {{"axis", int64_t{0}}},
                 StatusCode::kInvalidArgument, "binary_crossentropy: unknown attribute 'axis'");
}

}  // namespace plaidml::oplib::test
