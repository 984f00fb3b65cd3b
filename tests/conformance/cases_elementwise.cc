// Elementwise code (docs/tile.md section 3): every function of the op table on inputs inside its
// domain, every operator, select and ?:, and broadcasting chains with size-1 and scalar
// operands. Lengths straddle the 16-lane vector width and 64-wide tiles.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

const std::vector<ShapeSet>& unary_shapes() {
  static const std::vector<ShapeSet> sets = {{{1}},  {{7}},  {{15}},    {{16}},
                                             {{17}}, {{65}}, {{3, 31}}, {{2, 1, 64}}};
  return sets;
}

const std::vector<ShapeSet>& binary_shapes() {
  static const std::vector<ShapeSet> sets = {{{1}, {1}},        {{13}, {13}},       {{16}, {16}},
                                             {{17}, {17}},      {{4, 63}, {4, 63}}, {{3, 65}, {65}},
                                             {{31, 1}, {1, 16}}};
  return sets;
}

struct Fn {
  const char* name;
  const char* expr;  // over X
  double lo, hi;     // the input domain
};

std::vector<Case> unary_family() {
  // Every unary function of docs/tile.md section 3 in its natural domain.
  const std::vector<Fn> fns = {
      {"exp", "exp(X)", -10, 10},         {"log", "log(X)", 0.01, 100},
      {"sqrt", "sqrt(X)", 0, 100},        {"tanh", "tanh(X)", -5, 5},
      {"sin", "sin(X)", -10, 10},         {"cos", "cos(X)", -10, 10},
      {"tan", "tan(X)", -1.3, 1.3},       {"sinh", "sinh(X)", -5, 5},
      {"cosh", "cosh(X)", -5, 5},         {"asin", "asin(X)", -0.99, 0.99},
      {"acos", "acos(X)", -0.99, 0.99},   {"atan", "atan(X)", -10, 10},
      {"asinh", "asinh(X)", -10, 10},     {"acosh", "acosh(X)", 1.01, 10},
      {"atanh", "atanh(X)", -0.95, 0.95}, {"erf", "erf(X)", -3, 3},
      {"floor", "floor(X)", -5, 5},       {"ceil", "ceil(X)", -5, 5},
      {"round", "round(X)", -5, 5},       {"abs", "abs(X)", -5, 5},
      {"round_even", "round_even(X)", -5, 5},
      {"sign", "sign(X)", -2, 2},         {"neg", "neg(X)", -5, 5},
      {"unary_minus", "-X", -5, 5},       {"recip", "recip(X)", 0.1, 10},
      {"relu", "relu(X)", -2, 2},         {"sigmoid", "sigmoid(X)", -8, 8},
      {"square", "X * X", -3, 3},
      // The bits of f32 as i32 (compared exactly), and back.
      {"bitcast", "bitcast(X)", -1e6, 1e6},
      {"bitcast_round_trip", "bitcast(bitcast(X))", -1e6, 1e6},
  };
  std::vector<Case> cs;
  for (const Fn& f : fns) {
    Case c{std::string("fn_") + f.name, std::string("function (X) -> (R) { R = ") + f.expr + "; }",
           unary_shapes()};
    c.ranges = {range(f.lo, f.hi)};
    cs.push_back(std::move(c));
  }
  // round() of exact halves: ties go away from zero as C's round() does.
  Case ties{"fn_round_ties", "function (X) -> (R) { R = round(as_float(X, 32) / 2); }",
            unary_shapes()};
  ties.dtypes = {DType::I32};
  ties.ranges = {int_range(-9, 9)};
  cs.push_back(ties);
  // round_even() of exact halves: ties go to the even neighbour (-4.5 -> -4, 3.5 -> 4).
  Case even_ties{"fn_round_even_ties",
                 "function (X) -> (R) { R = round_even(as_float(X, 32) / 2); }", unary_shapes()};
  even_ties.dtypes = {DType::I32};
  even_ties.ranges = {int_range(-9, 9)};
  cs.push_back(even_ties);
  // isnan/isinf on NaN (log of a negative), -inf (log 0), finite values, and integers.
  for (const char* test : {"isnan", "isinf"}) {
    Case special{std::string("fn_") + test,
                 std::string("function (X) -> (R, S) { R = ") + test +
                     "(log(as_float(X, 32))); S = " + test + "(X); }",
                 unary_shapes()};
    special.dtypes = {DType::I32};
    special.ranges = {int_range(-2, 2)};
    cs.push_back(special);
  }
  return cs;
}

std::vector<Case> binary_family() {
  struct Bin {
    const char* name;
    const char* expr;  // over A and B
    testing::RandomOptions a, b;
  };
  const std::vector<Bin> ops = {
      {"add", "A + B", range(-5, 5), range(-5, 5)},
      {"sub", "A - B", range(-5, 5), range(-5, 5)},
      {"mul", "A * B", range(-5, 5), range(-5, 5)},
      {"div", "A / B", range(-5, 5), range(0.5, 4)},
      {"mod", "A % B", range(-9, 9), range(0.5, 4)},
      {"pow", "pow(A, B)", range(0.1, 4), range(-3, 3)},
      {"max", "max(A, B)", range(-1, 1), range(-1, 1)},
      {"min", "min(A, B)", range(-1, 1), range(-1, 1)},
      {"cmp_lt", "A < B", range(-1, 1), range(-1, 1)},
      {"cmp_gt", "A > B", range(-1, 1), range(-1, 1)},
      {"cmp_le", "A <= B", range(-1, 1), range(-1, 1)},
      {"cmp_ge", "A >= B", range(-1, 1), range(-1, 1)},
      {"cmp_eq", "A == floor(B)", range(-2, 2), range(-2, 2)},
      {"cmp_ne", "A != floor(B)", range(-2, 2), range(-2, 2)},
      {"ternary", "A > B ? A : B * 2", range(-1, 1), range(-1, 1)},
      {"select", "select(A < 0, B, A)", range(-1, 1), range(-1, 1)},
  };
  std::vector<Case> cs;
  for (const Bin& op : ops) {
    Case c{std::string("op_") + op.name,
           std::string("function (A, B) -> (R) { R = ") + op.expr + "; }", binary_shapes()};
    c.ranges = {op.a, op.b};
    cs.push_back(std::move(c));
  }
  return cs;
}

std::vector<Case> integer_op_family() {
  struct IntOp {
    const char* name;
    const char* expr;
    testing::RandomOptions a, b;
  };
  // Divisors exclude zero; shift counts stay below the width.
  const std::vector<IntOp> ops = {
      {"div", "A / B", int_range(-50, 50), int_range(1, 7)},
      {"div_negative", "A / B", int_range(-50, 50), int_range(-7, -1)},
      {"mod", "A % B", int_range(-50, 50), int_range(1, 7)},
      {"and", "A & B", int_range(-100, 100), int_range(-100, 100)},
      {"or", "A | B", int_range(-100, 100), int_range(-100, 100)},
      {"xor", "A ^ B", int_range(-100, 100), int_range(-100, 100)},
      {"not", "~A + B", int_range(-100, 100), int_range(-2, 2)},
      {"shl", "A << B", int_range(-100, 100), int_range(0, 20)},
      {"shr", "A >> B", int_range(-1000, 1000), int_range(0, 12)},
      {"abs_sign", "abs(A) * sign(B)", int_range(-100, 100), int_range(-3, 3)},
      {"max_min", "max(A, B) - min(A, 2 * B)", int_range(-50, 50), int_range(-50, 50)},
      {"mul_sub", "A * B - 3", int_range(-1000, 1000), int_range(-1000, 1000)},
  };
  std::vector<Case> cs;
  for (const IntOp& op : ops) {
    Case c{std::string("int_") + op.name,
           std::string("function (A, B) -> (R) { R = ") + op.expr + "; }", binary_shapes()};
    c.dtypes = {DType::I32};
    c.ranges = {op.a, op.b};
    cs.push_back(std::move(c));
  }
  return cs;
}

std::vector<Case> broadcast_family() {
  std::vector<Case> cs;
  cs.push_back({"broadcast_row_col_chain",
                R"(
function (A[N, M], B[M], C[N, _]) -> (R) {
  R = relu(A * B + C) - 0.5 * B;
})",
                {{{1, 1}, {1}, {1, 1}},
                 {{7, 13}, {13}, {7, 1}},
                 {{16, 17}, {17}, {16, 1}},
                 {{3, 64}, {64}, {3, 1}},
                 {{65, 1}, {1}, {65, 1}}}});
  cs.push_back({"broadcast_scalar_and_middle_one",
                R"(
function (A[P, Q, R], B[Q, _], S[]) -> (O) {
  O = A * S + B;
})",
                {{{1, 1, 1}, {1, 1}, {}},
                 {{2, 7, 13}, {7, 1}, {}},
                 {{3, 1, 16}, {1, 1}, {}},
                 {{2, 17, 65}, {17, 1}, {}}}});
  cs.push_back({"broadcast_outer",
                R"(
function (A[N, _], B[_, M]) -> (O) {
  O = A - B * 2;
})",
                {{{1, 1}, {1, 1}}, {{7, 1}, {1, 13}}, {{17, 1}, {1, 16}}, {{1, 1}, {1, 65}}}});
  cs.push_back({"long_chain", R"(
function (A, B) -> (R) {
  T = tanh(A) * sigmoid(B) + exp(-(A * A)) / (1 + abs(B));
  U = T > 0 ? sqrt(T + 1) : -log(1 - T);
  R = max(min(U, 2), -2) * 3 - floor(B);
})",
                binary_shapes()});
  Case multi{"multi_output_shared", R"(
function (A, B) -> (S, D, P) {
  S = A + B;
  D = A - B;
  P = S * D;
})",
             binary_shapes()};
  cs.push_back(multi);
  cs.push_back({"dims_as_values",
                R"(
function (X[N, M]) -> (R) {
  R = X * N + M - index(X, 1) / M;
})",
                {{{1, 1}}, {{7, 13}}, {{16, 17}}, {{2, 65}}}});
  cs.push_back({"literals", R"(
function (X) -> (R) {
  R = (X + 1.5) * 2 - 0.25 / (X * X + 1);
})",
                unary_shapes()});
  return cs;
}

}  // namespace

Family elementwise_cases() {
  Family f{"elementwise", {}};
  for (auto part : {unary_family(), binary_family(), integer_op_family(), broadcast_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
