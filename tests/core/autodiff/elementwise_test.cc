// Every elementwise function of the rule table against central differences, with broadcasting
// of each operand (rank differences, size-1 axes known symbolically or only at run time).
#include <string>
#include <vector>

#include "fd_check.h"

namespace plaidml::autodiff::test {

namespace {

struct Domain {
  std::string fn;
  double lo, hi;
};

// Each function on inputs inside its domain and away from its kinks.
const std::vector<Domain>& unary_functions() {
  static const std::vector<Domain> all = {
      {"neg", -1, 1},     {"exp", -1, 1},     {"log", 0.5, 2},     {"sqrt", 0.5, 2},
      {"tanh", -1, 1},    {"sin", -2, 2},     {"cos", -2, 2},      {"tan", -1, 1},
      {"sinh", -1, 1},    {"cosh", -1, 1},    {"asin", -0.8, 0.8}, {"acos", -0.8, 0.8},
      {"atan", -2, 2},    {"asinh", -2, 2},   {"acosh", 1.2, 3},   {"atanh", -0.8, 0.8},
      {"erf", -1.5, 1.5}, {"sigmoid", -2, 2}, {"relu", -1, 1},     {"abs", -1, 1},
      {"recip", 0.5, 2},  {"floor", -2, 2},   {"ceil", -2, 2},     {"round", -2, 2},
      {"sign", -1, 1},
  };
  return all;
}

std::string unary_program(const std::string& fn) {
  return "function (X[N, M]) -> (F) { F = " + fn + "(X); }";
}

}  // namespace

TEST_CASE("autodiff: every unary function matches finite differences") {
  uint64_t seed = 1;
  for (const Domain& d : unary_functions()) {
    CAPTURE(d.fn);
    check_gradient(unary_program(d.fn), "F", {{"X", rand64({3, 4}, seed++, d.lo, d.hi)}}, {"X"});
    check_gradient(unary_program(d.fn), "F", {{"X", rand64({1, 5}, seed++, d.lo, d.hi)}}, {"X"});
  }
}

TEST_CASE("autodiff: a float cast passes the gradient") {
  check_gradient("function (X[N]) -> (F) { F = as_float(X, 64) * X; }", "F",
                 {{"X", rand64({5}, 3)}}, {"X"});
}

TEST_CASE("autodiff: binary functions, both operands, with broadcasting") {
  struct Case {
    std::string expr;
    double alo, ahi, blo, bhi;
  };
  std::vector<Case> cases = {
      {"A + B", -1, 1, -1, 1},      {"A - B", -1, 1, -1, 1},     {"A * B", -1, 1, -1, 1},
      {"A / B", -1, 1, 0.5, 2},     {"A % B", 0.1, 3, 0.7, 1.3}, {"A % B", -3, -0.1, 0.7, 1.3},
      {"pow(A, B)", 0.5, 2, -1, 2}, {"max(A, B)", -1, 1, -1, 1}, {"min(A, B)", -1, 1, -1, 1},
  };
  // Operand shapes: equal; B of lower rank; A scalar; size-1 axes only known at run time.
  struct Shapes {
    std::string adecl, bdecl;
    std::vector<int64_t> a, b;
  };
  std::vector<Shapes> shapes = {
      {"A[N, M]", "B[N, M]", {3, 4}, {3, 4}},
      {"A[N, M]", "B[M]", {2, 3}, {3}},
      {"A[M]", "B[N, M]", {4}, {2, 4}},
      {"A[]", "B[N, M]", {}, {2, 3}},
      {"A[N, P]", "B[Q, M]", {3, 1}, {1, 4}},
      {"A[N, P]", "B[Q, M]", {3, 4}, {3, 4}},
      {"A[K, N, M]", "B[P, M]", {2, 3, 2}, {1, 2}},
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    for (const Shapes& s : shapes) {
      std::string tile =
          "function (" + s.adecl + ", " + s.bdecl + ") -> (F) { F = " + c.expr + "; }";
      CAPTURE(tile);
      check_gradient(
          tile, "F",
          {{"A", rand64(s.a, seed++, c.alo, c.ahi)}, {"B", rand64(s.b, seed++, c.blo, c.bhi)}},
          {"A", "B"});
    }
  }
}

TEST_CASE("autodiff: a literal size-1 axis sums to index 0") {
  const char* tile = R"(function (A[N], B[N, M]) -> (F) {
    A2 = reshape(A, N, 1);
    F = A2 * B;
  })";
  check_gradient(tile, "F", {{"A", rand64({3}, 1)}, {"B", rand64({3, 4}, 2)}}, {"A", "B"});
  check_gradient(tile, "F", {{"A", rand64({1}, 1)}, {"B", rand64({1, 1}, 2)}}, {"A", "B"});
}

TEST_CASE("autodiff: select routes to the chosen branch, literals and reuse") {
  const char* tile = R"(function (X[N], Y[N]) -> (F) {
    F = select(X > 0, X * Y, exp(Y) - 2.0 * X) + X * X + 3.0;
  })";
  check_gradient(tile, "F", {{"X", rand64({6}, 5)}, {"Y", rand64({6}, 6)}}, {"X", "Y"});
  check_gradient("function (C[N], X[N]) -> (F) { F = C > 0.5 ? X : X * X; }", "F",
                 {{"C", rand64({5}, 7)}, {"X", rand64({5}, 8)}}, {"X"});
}

TEST_CASE("autodiff: select with each operand broadcast") {
  const char* tile = R"(function (C[N, One], A[M], B[N, M]) -> (F) {
    F = select(C > 0.0, A, B);
  })";
  check_gradient(tile, "F",
                 {{"C", rand64({3, 1}, 11)}, {"A", rand64({4}, 12)}, {"B", rand64({3, 4}, 13)}},
                 {"A", "B"});
  check_gradient(tile, "F",
                 {{"C", rand64({1, 1}, 14)}, {"A", rand64({1}, 15)}, {"B", rand64({1, 1}, 16)}},
                 {"A", "B"});
}

TEST_CASE("autodiff: dims used as values are constants") {
  check_gradient("function (X[N, M]) -> (F) { F = X / N + X * M; }", "F",
                 {{"X", rand64({2, 3}, 9)}}, {"X"});
}

}  // namespace plaidml::autodiff::test
