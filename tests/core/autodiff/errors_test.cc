// The user-facing errors of gradient(), each message exactly; the names and
// dtypes of the gradient outputs; one gradient program run at several shapes.
#include <string>
#include <vector>

#include "fd_check.h"

namespace plaidml::autodiff::test {

namespace {

void check_error(const std::string &tile, const std::string &loss,
                 const std::vector<std::string> &wrt, StatusCode code, const std::string &message) {
  INFO(tile);
  Status s = gradient_status(tile, loss, wrt);
  CHECK(s.code() == code);
  CHECK(s.message() == message);
}

// d L / d X where L = +(F[...]) sums a non-scalar F.
std::string with_sum(const std::string &body) {
  return "function (X[N], Y[N]) -> (L) { " + body + " L[] = +(F[i]); }";
}

}  // namespace

TEST_CASE("autodiff: the loss must be a scalar output, the inputs must exist") {
  const char *tile = "function (X[N, M]) -> (L, S) { L = exp(X); S[] = +(X[i, j]); }";
  check_error(tile, "L", {"X"}, StatusCode::kTypeError,
              "gradient: loss 'L' has rank 2; a gradient needs a scalar output "
              "(reduce it first)");
  check_error(tile, "Q", {"X"}, StatusCode::kNotFound,
              "gradient: unknown loss 'Q' (not an output)");
  check_error(tile, "S", {"Z"}, StatusCode::kNotFound, "gradient: unknown input 'Z'");
  check_error(tile, "S", {"X", "X"}, StatusCode::kInvalidArgument,
              "gradient: input 'X' is listed twice");
  auto p = parse::parse_tile(tile);
  REQUIRE(p.has_value());
  auto g = gradient(**p, "S", {"X"}, {"A", "B"});
  REQUIRE(!g.has_value());
  CHECK(g.status().message() == "gradient: 2 gradient names given for 1 inputs");
  auto taken = gradient(**p, "S", {"X"}, {"L"});
  REQUIRE(!taken.has_value());
  CHECK(taken.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("autodiff: integer and boolean results stop the gradient with an error") {
  check_error(with_sum("T = X < 0; F = as_float(T, 64) * X;"), "L", {"X"},
              StatusCode::kInvalidArgument,
              "gradient: 'T' = cmp_lt(X, 0) is not differentiable (an integer "
              "or boolean result)");
  check_error(with_sum("F = as_float(X < Y, 64);"), "L", {"Y"}, StatusCode::kInvalidArgument,
              "gradient: '_T0' = cmp_lt(X, Y) is not differentiable (an "
              "integer or boolean result)");
  check_error(with_sum("T = as_int(X, 32); F = T * Y;"), "L", {"X", "Y"},
              StatusCode::kInvalidArgument,
              "gradient: 'T' = as_int(X, 32) is not differentiable (an integer "
              "or boolean result)");
  check_error(with_sum("T = index(X, 0); F = as_float(T < Y, 64);"), "L", {"Y"},
              StatusCode::kInvalidArgument,
              "gradient: '_T1' = cmp_lt(T, Y) is not differentiable (an integer or boolean "
              "result)");
  check_error(with_sum("E[i : N] = +(X[i] == Y[i]); F = as_float(E, 64);"), "L", {"X"},
              StatusCode::kInvalidArgument,
              "gradient: 'E' is an equality (==) contraction, which is not "
              "differentiable (a "
              "boolean result)");
  check_error(with_sum("R = prng_step(X, N); V = prng_value(R); F = V * Y;"), "L", {"X"},
              StatusCode::kInvalidArgument,
              "gradient: 'V' = prng_value(R) is not differentiable (a random draw)");
  check_error("function (X: i32[N]) -> (L) { L[] = +(X[i]); }", "L", {"X"},
              StatusCode::kInvalidArgument,
              "gradient: input 'X' is declared i32; only float inputs have a gradient");
}

TEST_CASE("autodiff: no gradient needed through a comparison that only selects") {
  // The condition of select, the indices of gather: the gradient does not flow through them.
  check_gradient(with_sum("F = select(X < Y, X, Y * 2.0);"), "L",
                 {{"X", rand64({4}, 1)}, {"Y", rand64({4}, 2)}}, {"X", "Y"});
  check_gradient(with_sum("F = gather(Y, as_int(X * 0.0 + 1.0, 32)) * X;"), "L",
                 {{"X", rand64({4}, 1)}, {"Y", rand64({4}, 2)}}, {"X", "Y"});
}

TEST_CASE("autodiff: index and shape read only the shape: constants, not errors") {
  // A one-hot mask of the wrt input's own axis (as cross-entropy builds it) is a constant.
  const char *tile = R"(function (X[N, C], Lbl[N, One]) -> (F) {
    Hot = as_float(index(X, 1) == Lbl, 64);
    F = Hot * log(X) + as_float(index(X, 0), 64) * X;
  })";
  check_gradient(tile, "F", {{"X", rand64({3, 4}, 5, 0.5, 2)}, {"Lbl", i32({3, 1}, {0, 3, 1})}},
                 {"X"});
}

TEST_CASE("autodiff: product aggregation and max of a combination have no gradient") {
  check_error("function (X[N]) -> (P) { P[] = *(X[i]); }", "P", {"X"}, StatusCode::kInvalidArgument,
              "gradient: 'P' is a product (*) contraction, which has no gradient");
  check_error("function (X[N], Y[N]) -> (P) { P[] = >(X[i] * Y[i]); }", "P", {"X"},
              StatusCode::kInvalidArgument,
              "gradient: 'P' is a max (>) contraction of a combination of "
              "inputs, which has no "
              "gradient (only a max of one input has one)");
  check_error("function (X[N], Y[N]) -> (P) { P[] = <(X[i] + Y[i]); }", "P", {"Y"},
              StatusCode::kInvalidArgument,
              "gradient: 'P' is a min (<) contraction of a combination of "
              "inputs, which has no "
              "gradient (only a min of one input has one)");
  // A product the loss does not reach through a wrt input is never
  // differentiated.
  check_gradient("function (X[N], Y[N]) -> (F) { P[] = *(Y[i]); F = X * P; }", "F",
                 {{"X", rand64({3}, 3)}, {"Y", rand64({3}, 4)}}, {"X"});
}

TEST_CASE(
    "autodiff: outputs: names, the original outputs, declared dtypes, "
    "any shape") {
  auto p = parse::parse_tile("function (X: f32[N], Y[N]) -> (L) { F = X * X * Y; L[] = +(F[i]); }");
  REQUIRE(p.has_value());
  auto g = gradient(**p, "L", {"X", "Y"}, {"DX", "DY"});
  REQUIRE_MESSAGE(g.has_value(), g.status().message());
  REQUIRE((*g)->outputs.size() == 3);
  CHECK((*g)->outputs[0].first == "L");
  CHECK((*g)->outputs[1].first == "DX");
  CHECK((*g)->outputs[2].first == "DY");
  for (int64_t n : {1, 3, 6}) {
    std::vector<double> x, y;
    for (int64_t k = 0; k < n; ++k) x.push_back(0.5 * k - 1), y.push_back(2.0 - k);
    HostTensor xt = make_tensor(DType::F32, {n}, x), yt = make_tensor(DType::F32, {n}, y);
    std::vector<HostTensor> out = detail::run(*g, {xt, yt});
    REQUIRE(out[1].shape == Shape(DType::F32, {n}));
    for (int64_t k = 0; k < n; ++k) {
      CHECK(plaidml::testing::element_as_double(out[1], k) == doctest::Approx(2 * x[k] * y[k]));
      CHECK(plaidml::testing::element_as_double(out[2], k) == doctest::Approx(x[k] * x[k]));
    }
  }
}

TEST_CASE("autodiff: the gradient program keeps the program's assertions") {
  const char *tile =
      "function (X[N], Y[M]) -> (L) {\n  assert N == M, \"{0} is not {1}\", N, M;\n"
      "  L[] = +(X[i] * Y[i]);\n}\n";
  auto p = parse::parse_tile(tile);
  REQUIRE(p.has_value());
  auto g = gradient(**p, "L", {"X"}, {"DX"});
  REQUIRE(g.has_value());
  REQUIRE((*g)->assertions.size() == 1);
  CHECK((*g)->assertions[0].message == "{0} is not {1}");
  auto bound = ir::bind(*g, {Shape(DType::F32, {3}), Shape(DType::F32, {2})});
  REQUIRE(!bound.has_value());
  CHECK(bound.status().message() == "2:3: 3 is not 2");
}

}  // namespace plaidml::autodiff::test
