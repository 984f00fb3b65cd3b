// batch_norm and layer_norm against naive loops.
#include <cmath>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using plaidml::testing::random_tensor;

// Row-major coordinates of flat index i.
std::vector<int64_t> coords(const std::vector<int64_t>& dims, int64_t i) {
  std::vector<int64_t> c(dims.size());
  for (size_t k = dims.size(); k-- > 0;) c[k] = i % dims[k], i /= dims[k];
  return c;
}

HostTensor rnd(std::vector<int64_t> dims, uint64_t seed, double lo = -2, double hi = 2) {
  return random_tensor(Shape(DType::F32, std::move(dims)), seed, {.lo = lo, .hi = hi});
}

void check_batch_norm(const std::vector<int64_t>& dims, int64_t axis, double eps, bool pass_axis) {
  int64_t rank = static_cast<int64_t>(dims.size());
  int64_t ax = axis < 0 ? axis + rank : axis;
  int64_t c = dims[ax];
  HostTensor x = rnd(dims, 1), scale = rnd({c}, 2), bias = rnd({c}, 3), mean = rnd({c}, 4);
  HostTensor var = rnd({c}, 5, 0.1, 2);
  auto xv = to_doubles(x), sv = to_doubles(scale), bv = to_doubles(bias), mv = to_doubles(mean),
       vv = to_doubles(var);
  std::vector<double> want(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    int64_t ch = coords(dims, static_cast<int64_t>(i))[ax];
    want[i] = (xv[i] - mv[ch]) / std::sqrt(vv[ch] + eps) * sv[ch] + bv[ch];
  }
  Attrs attrs;
  if (pass_axis) attrs["axis"] = axis;
  if (eps != 1e-5) attrs["epsilon"] = eps;
  INFO("rank ", rank, " axis ", axis);
  check_tensor(
      run_ok("batch_norm", {{"X", x}, {"S", scale}, {"B", bias}, {"M", mean}, {"V", var}}, attrs),
      f32(dims, want));
}

}  // namespace

TEST_CASE("batch_norm: channels last (default), NCHW, every axis") {
  check_batch_norm({4, 3}, -1, 1e-5, false);
  check_batch_norm({2, 3, 3, 5}, -1, 1e-5, false);
  check_batch_norm({2, 3, 4, 5}, 1, 1e-5, true);
  check_batch_norm({2, 3, 4, 5}, 1, 0.5, true);
  check_batch_norm({5}, 0, 1e-5, true);
  check_batch_norm({3, 1, 4}, 0, 1e-3, true);
  check_batch_norm({3, 1, 4}, -2, 1e-5, true);
  check_batch_norm({1, 2, 1}, 1, 1e-5, true);
  check_tensor(run_ok("batch_norm",
                      {{"X", f32({1, 2}, {3, 3})},
                       {"S", f32({2}, {2, 1})},
                       {"B", f32({2}, {1, 0})},
                       {"M", f32({2}, {1, 5})},
                       {"V", f32({2}, {4, 1})}},
                      {{"epsilon", 0.0}}),
               f32({1, 2}, {3, -2}));
}

TEST_CASE("batch_norm: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor p = f32({3}, {1, 1, 1});
  HostTensor p2 = f32({1, 3}, {1, 1, 1});
  check_op_error("batch_norm", {{"X", x}, {"S", p2}, {"B", p}, {"M", p}, {"V", p}}, {},
                 StatusCode::kTypeError,
                 "batch_norm: argument 'scale' must have rank 1, but it has rank 2");
  check_op_error("batch_norm", {{"X", x}, {"S", p}, {"B", p}, {"M", p}, {"V", p2}}, {},
                 StatusCode::kTypeError,
                 "batch_norm: argument 'variance' must have rank 1, but it has rank 2");
  check_op_error("batch_norm", {{"X", x}, {"S", p}, {"B", p}, {"M", p}, {"V", p}},
                 {{"axis", int64_t{2}}}, StatusCode::kTypeError,
                 "batch_norm: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("batch_norm", {{"X", x}, {"S", p}, {"B", p}, {"M", p}, {"V", p}},
                 {{"epsilon", -1.0}}, StatusCode::kInvalidArgument,
                 "batch_norm: attribute 'epsilon' must be >= 0, got -1");
  check_op_error("batch_norm", {{"X", x}, {"S", p}, {"B", p}, {"M", p}}, {},
                 StatusCode::kInvalidArgument,
                 "batch_norm: takes 5 operands (input, scale, bias, mean, variance), got 4");
  // Channel counts are symbolic while building; a mismatch is found when shapes are bound.
  OpRun r =
      run_op("batch_norm", {{"X", x}, {"S", f32({4}, {1, 1, 1, 1})}, {"B", p}, {"M", p}, {"V", p}});
  CHECK(!r.status.is_ok());
}

namespace {

// layer_norm over `axes` (a flag per axis) with scale/bias indexed by the normalised axes.
void check_layer_norm(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes,
                      int operands, double eps = 1e-5) {
  std::vector<bool> red(dims.size(), false);
  std::vector<int64_t> pdims;
  for (int64_t a : axes) red[a < 0 ? a + static_cast<int64_t>(dims.size()) : a] = true;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (red[k]) pdims.push_back(dims[k]);
  }
  HostTensor x = rnd(dims, 7), scale = rnd(pdims, 8), bias = rnd(pdims, 9);
  auto xv = to_doubles(x), sv = to_doubles(scale), bv = to_doubles(bias);
  auto n = static_cast<int64_t>(xv.size());
  // Group key: the coordinates on kept axes; parameter index: those on normalised axes.
  auto key = [&](int64_t i, bool normalised) {
    auto c = coords(dims, i);
    int64_t k = 0;
    for (size_t a = 0; a < dims.size(); ++a) {
      if (red[a] == normalised) k = k * dims[a] + c[a];
    }
    return k;
  };
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) {
    double s = 0, ss = 0, cnt = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (key(j, false) == key(i, false)) s += xv[j], cnt += 1;
    }
    double m = s / cnt;
    for (int64_t j = 0; j < n; ++j) {
      if (key(j, false) == key(i, false)) ss += (xv[j] - m) * (xv[j] - m);
    }
    want[i] = (xv[i] - m) / std::sqrt(ss / cnt + eps);
    if (operands > 1) want[i] *= sv[key(i, true)];
    if (operands > 2) want[i] += bv[key(i, true)];
  }
  std::vector<Input> in{{"X", x}, {"S", scale}, {"B", bias}};
  in.resize(operands);
  Attrs attrs{{"axes", axes}};
  if (eps != 1e-5) attrs["epsilon"] = eps;
  INFO("dims ", fmt::format("{}", fmt::join(dims, ",")), " axes ",
       fmt::format("{}", fmt::join(axes, ",")), " operands ", operands);
  check_tensor(run_ok("layer_norm", in, attrs), f32(dims, want));
}

}  // namespace

TEST_CASE("layer_norm: axes, optional scale and bias") {
  for (int operands = 1; operands <= 3; ++operands) {
    check_layer_norm({2, 5}, {-1}, operands);
    check_layer_norm({3, 2, 4}, {1, 2}, operands);
    check_layer_norm({3, 2, 4}, {0, 2}, operands);
    check_layer_norm({3, 2, 4}, {0}, operands);
    check_layer_norm({3, 1, 4}, {-2}, operands, 0.1);
    check_layer_norm({1, 1, 4}, {0, 1, 2}, operands);
  }
  check_tensor(run_ok("layer_norm", {{"X", f32({2}, {1, 3})}}),
               f32({2}, {-1 / std::sqrt(1 + 1e-5), 1 / std::sqrt(1 + 1e-5)}));
  HostTensor x = f32({2, 2}, {1, 3, 5, 3});
  check_tensor(run_ok("layer_norm", {{"X", x}, {"S", f32({2}, {2, 3})}, {"B", f32({2}, {1, 0})}},
                      {{"epsilon", 0.0}, {"axes", std::vector<int64_t>{1}}}),
               f32({2, 2}, {-1, 3, 3, -3}));
}

TEST_CASE("layer_norm: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_op_error("layer_norm", {{"X", x}, {"S", f32({2, 3}, {1, 1, 1, 1, 1, 1})}}, {},
                 StatusCode::kTypeError,
                 "layer_norm: argument 'scale' must have rank 1, but it has rank 2");
  check_op_error("layer_norm", {{"X", x}, {"S", f32({3}, {1, 1, 1})}, {"B", f32({}, {1})}}, {},
                 StatusCode::kTypeError,
                 "layer_norm: argument 'bias' must have rank 1, but it has rank 0");
  check_op_error("layer_norm", {{"X", x}}, {{"axes", std::vector<int64_t>{0, -2}}},
                 StatusCode::kInvalidArgument, "layer_norm: attribute 'axes' names axis 0 twice");
  check_op_error("layer_norm", {{"X", x}}, {{"axes", std::vector<int64_t>{2}}},
                 StatusCode::kTypeError,
                 "layer_norm: attribute 'axes' is 2, out of range for rank 2");
  check_op_error("layer_norm", {{"X", x}}, {{"epsilon", -0.5}}, StatusCode::kInvalidArgument,
                 "layer_norm: attribute 'epsilon' must be >= 0, got -0.5");
  check_op_error("layer_norm", {{"X", x}}, {{"epsilon", std::string("small")}},
                 StatusCode::kInvalidArgument,
                 "layer_norm: attribute 'epsilon' must be a number, not a string");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

// Operands whose dims are constants (here: reshaped to literal sizes) are checked while
// building.
TEST_CASE("batch_norm / layer_norm: constant channel counts that differ") {
  namespace se = ir::size_expr;
  ir::ProgramBuilder b("consts");
  auto x = b.add_input("X", std::vector<std::string>{"N", "C"}, std::nullopt, {});
  auto p = b.add_input("P", std::vector<std::string>{"K"}, std::nullopt, {});
  REQUIRE(x.has_value());
  REQUIRE(p.has_value());
  auto x3 = b.add_call("reshape", {*x}, {se::lit(2), se::lit(3)}, {});
  auto p4 = b.add_call("reshape", {*p}, {se::lit(4)}, {});
  REQUIRE(x3.has_value());
  REQUIRE(p4.has_value());
  auto r = apply(b, "batch_norm", {*x3, *p4, *p4, *p4, *p4}, {});
  REQUIRE(!r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() == "batch_norm: argument 'scale' has 4 channels but input has 3");
  r = apply(b, "layer_norm", {*x3, *p4}, {});
  REQUIRE(!r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "layer_norm: argument 'scale' has size 4 on its axis 0 but input has size 3 on axis 1");
}

}  // namespace plaidml::oplib::test
