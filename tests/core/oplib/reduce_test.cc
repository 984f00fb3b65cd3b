// Reductions and argmax/argmin against naive loops over plain arrays.
#include <algorithm>
#include <cmath>
#include <functional>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using plaidml::testing::random_tensor;
using Fold = std::function<double(const std::vector<double>&)>;

// The groups of input values (row-major order) that each output element of a reduction over
// `red` aggregates; out_dims gets the output dims (with keepdims or not).
std::vector<std::vector<double>> groups(const std::vector<int64_t>& dims,
                                        const std::vector<double>& v, const std::vector<bool>& red,
                                        bool keepdims, std::vector<int64_t>* out_dims) {
  out_dims->clear();
  int64_t out_n = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!red[k]) out_n *= dims[k];
    if (!red[k]) out_dims->push_back(dims[k]);
    if (red[k] && keepdims) out_dims->push_back(1);
  }
  std::vector<std::vector<double>> g(out_n);
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
    int64_t rest = i, out = 0, scale = 1;
    for (size_t k = dims.size(); k-- > 0;) {
      int64_t coord = rest % dims[k];
      rest /= dims[k];
      if (!red[k]) out += coord * scale, scale *= dims[k];
    }
    g[out].push_back(v[i]);
  }
  return g;
}

double sum_of(const std::vector<double>& g) {
  double s = 0;
  for (double x : g) s += x;
  return s;
}

Fold fold_for(const std::string& op, int64_t ddof = 0) {
  if (op == "sum") return sum_of;
  if (op == "mean") return [](const auto& g) { return sum_of(g) / g.size(); };
  if (op == "max") return [](const auto& g) { return *std::max_element(g.begin(), g.end()); };
  if (op == "min") return [](const auto& g) { return *std::min_element(g.begin(), g.end()); };
  if (op == "prod") {
    return [](const auto& g) {
      double p = 1;
      for (double x : g) p *= x;
      return p;
    };
  }
  return [ddof](const auto& g) {
    double m = sum_of(g) / g.size(), ss = 0;
    for (double x : g) ss += (x - m) * (x - m);
    return ss / (static_cast<double>(g.size()) - ddof);
  };
}

// Runs `op` with `axes` (nullopt: attribute absent) and checks it against the naive fold.
void check_reduce(const std::string& op, DType dtype, std::vector<int64_t> dims,
                  std::optional<std::vector<int64_t>> axes, bool keepdims, Attrs attrs = {}) {
  HostTensor x = random_tensor(Shape(dtype, dims), dims.size() * 31 + 7,
                               {.lo = 0.5, .hi = 1.5, .int_lo = -3, .int_hi = 3});
  std::vector<bool> red(dims.size(), !axes.has_value());
  if (axes) {
    for (int64_t a : *axes) red[a < 0 ? a + static_cast<int64_t>(dims.size()) : a] = true;
    attrs["axes"] = *axes;
  }
  attrs["keepdims"] = int64_t{keepdims};
  int64_t ddof = attrs.count("ddof") ? std::get<int64_t>(attrs["ddof"]) : 0;
  std::vector<int64_t> out_dims;
  auto g = groups(dims, to_doubles(x), red, keepdims, &out_dims);
  std::vector<double> want;
  for (const auto& grp : g) want.push_back(fold_for(op, ddof)(grp));
  INFO(op, " dims ", fmt::format("{}", fmt::join(dims, ",")), " keepdims ", keepdims);
  check_tensor(run_ok(op, {{"X", x}}, attrs), make_tensor(dtype, out_dims, want));
}

const std::vector<std::vector<int64_t>> kShapes = {{5}, {2, 3}, {1, 3, 1}, {3, 1, 4}, {2, 3, 5}};

}  // namespace

TEST_CASE("reduce: every op over every single axis (positive and negative) and all axes") {
  for (std::string op : {"sum", "mean", "max", "min", "prod", "variance"}) {
    for (const auto& dims : kShapes) {
      auto rank = static_cast<int64_t>(dims.size());
      for (bool keep : {false, true}) {
        check_reduce(op, DType::F32, dims, std::nullopt, keep);
        for (int64_t a = 0; a < rank; ++a) {
          check_reduce(op, DType::F32, dims, std::vector<int64_t>{a}, keep);
          check_reduce(op, DType::F64, dims, std::vector<int64_t>{a - rank}, keep);
        }
      }
    }
  }
}

TEST_CASE("reduce: several axes, an empty axes list, and a scalar input") {
  for (std::string op : {"sum", "mean", "max", "prod", "variance"}) {
    for (bool keep : {false, true}) {
      check_reduce(op, DType::F32, {2, 3, 5}, std::vector<int64_t>{0, 2}, keep);
      check_reduce(op, DType::F32, {2, 3, 5}, std::vector<int64_t>{-1, 1}, keep);
      check_reduce(op, DType::F32, {3, 1, 4}, std::vector<int64_t>{0, 1, 2}, keep);
    }
  }
  check_reduce("sum", DType::F32, {2, 3}, std::vector<int64_t>{}, false);
  check_tensor(run_ok("sum", {{"X", f32({}, {4})}}), f32({}, {4}));
  check_tensor(run_ok("max", {{"X", f32({}, {4})}}, {{"keepdims", int64_t{1}}}), f32({}, {4}));
}

TEST_CASE("reduce: integer inputs") {
  for (std::string op : {"sum", "max", "min", "prod"}) {
    for (bool keep : {false, true}) {
      check_reduce(op, DType::I32, {3, 1, 4}, std::nullopt, keep);
      check_reduce(op, DType::I32, {2, 3, 5}, std::vector<int64_t>{1}, keep);
    }
  }
  // Integer mean divides as integers (truncating toward zero).
  check_tensor(run_ok("mean", {{"X", i32({2, 3}, {1, 2, 4, -1, -2, -4})}}, {{"axes", int64_t{1}}}),
               i32({2}, {2, -2}));
}

TEST_CASE("variance: ddof") {
  check_reduce("variance", DType::F64, {2, 3, 5}, std::vector<int64_t>{2}, false,
               {{"ddof", int64_t{1}}});
  check_reduce("variance", DType::F32, {3, 1, 4}, std::nullopt, true, {{"ddof", int64_t{2}}});
  check_tensor(run_ok("variance", {{"X", f32({4}, {1, 2, 3, 4})}}), f32({}, {1.25}));
  check_tensor(run_ok("variance", {{"X", f32({4}, {1, 2, 3, 4})}}, {{"ddof", int64_t{1}}}),
               f32({}, {5.0 / 3}));
}

TEST_CASE("reduce: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_op_error("sum", {{"X", x}}, {{"axes", std::vector<int64_t>{1, 1}}},
                 StatusCode::kInvalidArgument, "sum: attribute 'axes' names axis 1 twice");
  check_op_error("mean", {{"X", x}}, {{"axes", std::vector<int64_t>{-1, 1}}},
                 StatusCode::kInvalidArgument, "mean: attribute 'axes' names axis 1 twice");
  check_op_error("max", {{"X", x}}, {{"axes", std::vector<int64_t>{2}}}, StatusCode::kTypeError,
                 "max: attribute 'axes' is 2, out of range for rank 2");
  check_op_error("min", {{"X", x}}, {{"axes", int64_t{-3}}}, StatusCode::kTypeError,
                 "min: attribute 'axes' is -3, out of range for rank 2");
  check_op_error("prod", {{"X", x}}, {{"keepdims", int64_t{2}}}, StatusCode::kInvalidArgument,
                 "prod: attribute 'keepdims' must be 0 or 1, got 2");
  check_op_error("sum", {{"X", x}}, {{"axes", std::string("all")}}, StatusCode::kInvalidArgument,
                 "sum: attribute 'axes' must be a list of integers, not a string");
  check_op_error("variance", {{"X", x}}, {{"ddof", int64_t{-1}}}, StatusCode::kInvalidArgument,
                 "variance: attribute 'ddof' must be >= 0, got -1");
  check_op_error("sum", {{"X", x}}, {{"axis", int64_t{0}}}, StatusCode::kInvalidArgument,
                 "sum: unknown attribute 'axis'");
  check_op_error("sum", {{"X", x}, {"Y", x}}, {}, StatusCode::kInvalidArgument,
                 "sum: takes 1 operand (input), got 2");
}

// ---- argmax / argmin ----

namespace {

// numpy's argmax/argmin along `axis` (first index on ties), as doubles.
std::vector<double> naive_arg(const std::vector<int64_t>& dims, const std::vector<double>& v,
                              int64_t axis, bool is_max, std::vector<int64_t>* out_dims,
                              bool keepdims) {
  std::vector<bool> red(dims.size(), false);
  red[axis] = true;
  auto g = groups(dims, v, red, keepdims, out_dims);
  std::vector<double> r;
  for (const auto& grp : g) {
    auto it = is_max ? std::max_element(grp.begin(), grp.end())
                     : std::min_element(grp.begin(), grp.end());  // both return the first
    r.push_back(static_cast<double>(it - grp.begin()));
  }
  return r;
}

}  // namespace

TEST_CASE("argmax/argmin: every axis, keepdims, ties resolved to the first index") {
  for (bool is_max : {true, false}) {
    std::string op = is_max ? "argmax" : "argmin";
    for (const auto& dims : kShapes) {
      auto rank = static_cast<int64_t>(dims.size());
      // Small integers stored as floats: many ties.
      HostTensor x = random_tensor(Shape(DType::F32, dims), 99 + rank, {.lo = 0, .hi = 1});
      std::vector<double> v = to_doubles(x);
      for (double& e : v) e = std::floor(e * 3);
      x = f32(dims, v);
      for (int64_t a = 0; a < rank; ++a) {
        for (bool keep : {false, true}) {
          std::vector<int64_t> od;
          auto want = naive_arg(dims, v, a, is_max, &od, keep);
          Attrs attrs{{"axis", a - (keep ? rank : 0)}, {"keepdims", int64_t{keep}}};
          INFO(op, " axis ", a, " keep ", keep);
          check_tensor(run_ok(op, {{"X", x}}, attrs), i32(od, want));
        }
      }
    }
  }
}

TEST_CASE("argmax/argmin: hand-computed ties, flattened input, integer input") {
  HostTensor x = f32({2, 4}, {3, 7, 7, 1, 5, 5, 2, 2});
  check_tensor(run_ok("argmax", {{"X", x}}, {{"axis", int64_t{1}}}), i32({2}, {1, 0}));
  check_tensor(run_ok("argmin", {{"X", x}}, {{"axis", int64_t{1}}}), i32({2}, {3, 2}));
  check_tensor(run_ok("argmax", {{"X", x}}, {{"axis", int64_t{0}}}), i32({4}, {1, 0, 0, 1}));
  check_tensor(run_ok("argmax", {{"X", x}}), i32({}, {1}));
  check_tensor(run_ok("argmin", {{"X", x}}), i32({}, {3}));
  check_tensor(run_ok("argmin", {{"X", x}}, {{"keepdims", int64_t{1}}}), i32({1, 1}, {3}));
  check_tensor(run_ok("argmax", {{"X", f32({}, {2})}}), i32({}, {0}));
  HostTensor xi = i32({3, 2}, {-4, 9, -4, 9, 8, -5});
  check_tensor(run_ok("argmax", {{"X", xi}}, {{"axis", int64_t{0}}}), i32({2}, {2, 0}));
  check_tensor(run_ok("argmin", {{"X", xi}}, {{"axis", int64_t{0}}}), i32({2}, {0, 2}));
  check_tensor(run_ok("argmax", {{"X", f64({3}, {-1e300, -1e300, -2e300})}}), i32({}, {0}));
}

TEST_CASE("argmax/argmin: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_op_error("argmax", {{"X", x}}, {{"axis", int64_t{2}}}, StatusCode::kTypeError,
                 "argmax: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("argmin", {{"X", x}}, {{"axis", std::vector<int64_t>{0, 1}}},
                 StatusCode::kInvalidArgument,
                 "argmin: attribute 'axis' must be an integer, not a list of integers");
  check_op_error("argmin", {{"X", x}}, {{"keepdims", int64_t{-1}}}, StatusCode::kInvalidArgument,
                 "argmin: attribute 'keepdims' must be 0 or 1, got -1");
  check_op_error("argmax", {{"X", x}}, {{"axes", int64_t{0}}}, StatusCode::kInvalidArgument,
                 "argmax: unknown attribute 'axes'");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

TEST_CASE("reduce: f16, bf16 and f64 inputs") {
  for (DType dtype : {DType::F16, DType::BF16, DType::F64}) {
    for (std::string op : {"sum", "mean", "max", "variance"}) {
      check_reduce(op, dtype, {3, 1, 4}, std::vector<int64_t>{-1}, false);
      check_reduce(op, dtype, {2, 3}, std::nullopt, true);
    }
    HostTensor x = make_tensor(dtype, {2, 3}, {1, 4, 4, 2, 0, 2});
    check_tensor(run_ok("argmax", {{"X", x}}, {{"axis", int64_t{1}}}), i32({2}, {1, 0}));
  }
}

TEST_CASE("variance: ddof >= count divides by zero (numpy: max(count - ddof, 0))") {
  HostTensor x = f32({2}, {1, 2});
  check_tensor(run_ok("variance", {{"X", x}}, {{"ddof", int64_t{3}}}), f32({}, {INFINITY}));
}

}  // namespace plaidml::oplib::test
