// Elementwise ops: every function spot-checked against <cmath>, integer corner cases, casts,
// broadcasting and dtype rules.
#include <cmath>
#include <functional>
#include <limits>

#include "eval_util.h"

namespace plaidml::eval::test {
namespace {

struct Unary {
  const char* name;
  std::function<double(double)> fn;
  std::vector<double> inputs;
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const std::vector<Unary>& unary_table() {
  static const std::vector<Unary> table = {
      {"exp", [](double x) { return std::exp(x); }, {-2, 0, 0.5, 3}},
      {"log", [](double x) { return std::log(x); }, {0.25, 1, 2.5, 100}},
      {"sqrt", [](double x) { return std::sqrt(x); }, {0, 0.25, 2, 81}},
      {"tanh", [](double x) { return std::tanh(x); }, {-3, -0.5, 0, 2}},
      {"sin", [](double x) { return std::sin(x); }, {-1, 0, 0.5, 3}},
      {"cos", [](double x) { return std::cos(x); }, {-1, 0, 0.5, 3}},
      {"tan", [](double x) { return std::tan(x); }, {-1, 0, 0.5, 1.2}},
      {"sinh", [](double x) { return std::sinh(x); }, {-1, 0, 0.5, 2}},
      {"cosh", [](double x) { return std::cosh(x); }, {-1, 0, 0.5, 2}},
      {"asin", [](double x) { return std::asin(x); }, {-1, 0, 0.5, 0.9}},
      {"acos", [](double x) { return std::acos(x); }, {-1, 0, 0.5, 0.9}},
      {"atan", [](double x) { return std::atan(x); }, {-10, 0, 0.5, 3}},
      {"asinh", [](double x) { return std::asinh(x); }, {-2, 0, 0.5, 3}},
      {"acosh", [](double x) { return std::acosh(x); }, {1, 1.5, 2, 10}},
      {"atanh", [](double x) { return std::atanh(x); }, {-0.9, 0, 0.5, 0.75}},
      {"erf", [](double x) { return std::erf(x); }, {-2, 0, 0.5, 1.5}},
      {"floor", [](double x) { return std::floor(x); }, {-2.5, -0.5, 0.5, 2.7}},
      {"ceil", [](double x) { return std::ceil(x); }, {-2.5, -0.5, 0.5, 2.2}},
      {"round", [](double x) { return std::round(x); }, {-2.5, -0.5, 0.5, 2.5}},
      {"abs", [](double x) { return std::fabs(x); }, {-2.5, -0.0, 0.5, 3}},
      {"neg", [](double x) { return -x; }, {-2.5, 0, 0.5, 3}},
      {"sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, {-2.5, 0, 0.5, 3}},
      {"recip", [](double x) { return 1.0 / x; }, {-4, 0.5, 3, 8}},
      {"relu", [](double x) { return x < 0 ? 0.0 : x; }, {-2.5, 0, 0.5, 3}},
      {"sigmoid", sigmoid, {-3, 0, 0.5, 4}},
  };
  return table;
}

TEST_CASE("every unary function matches <cmath> in f64 and rounds once in f32") {
  for (const Unary& u : unary_table()) {
    CAPTURE(u.name);
    std::string text = std::string("function (X[N]) -> (R) { R = ") + u.name + "(X); }";
    HostTensor r64 = run1(text, {make_tensor(DType::F64, {4}, u.inputs)});
    std::vector<double> want64, want32;
    for (double x : u.inputs) {
      want64.push_back(u.fn(x));
      want32.push_back(static_cast<float>(u.fn(static_cast<float>(x))));
    }
    CHECK(r64.shape.dtype == DType::F64);
    CHECK(to_doubles(r64) == want64);  // computed in double: bit-exact
    HostTensor r32 = run1(text, {make_tensor(DType::F32, {4}, u.inputs)});
    CHECK(r32.shape.dtype == DType::F32);
    CHECK(to_doubles(r32) == want32);
  }
}

TEST_CASE("binary float functions and operators") {
  HostTensor a = make_tensor(DType::F64, {4}, {2, -3, 0.5, 7});
  HostTensor b = make_tensor(DType::F64, {4}, {3, 2, -4, 2.5});
  auto bin = [&](const std::string& expr) {
    return to_doubles(run1("function (A[N], B[N]) -> (R) { R = " + expr + "; }", {a, b}));
  };
  CHECK(bin("pow(A, B)") == std::vector<double>{8, 9, std::pow(0.5, -4), std::pow(7, 2.5)});
  CHECK(bin("max(A, B)") == std::vector<double>{3, 2, 0.5, 7});
  CHECK(bin("min(A, B)") == std::vector<double>{2, -3, -4, 2.5});
  CHECK(bin("A + B") == std::vector<double>{5, -1, -3.5, 9.5});
  CHECK(bin("A - B") == std::vector<double>{-1, -5, 4.5, 4.5});
  CHECK(bin("A * B") == std::vector<double>{6, -6, -2, 17.5});
  CHECK(bin("A / B") == std::vector<double>{2.0 / 3, -1.5, -0.125, 2.8});
  CHECK(bin("A % B") == std::vector<double>{std::fmod(2, 3), std::fmod(-3, 2), std::fmod(0.5, -4),
                                            std::fmod(7, 2.5)});
  CHECK(bin("A < B") == std::vector<double>{1, 1, 0, 0});
  CHECK(bin("A >= B") == std::vector<double>{0, 0, 1, 1});
  CHECK(bin("A == A") == std::vector<double>{1, 1, 1, 1});
  CHECK(bin("A != B") == std::vector<double>{1, 1, 1, 1});
  CHECK(bin("A <= 0.5") == std::vector<double>{0, 1, 1, 0});
  CHECK(bin("A > -3") == std::vector<double>{1, 0, 1, 1});
}

TEST_CASE("float corner cases: division by zero, NaN through max and relu") {
  double inf = std::numeric_limits<double>::infinity();
  HostTensor a = make_tensor(DType::F32, {3}, {1, -1, 0});
  auto r = to_doubles(run1("function (A[N]) -> (R) { R = A / 0.0; }", {a}));
  CHECK(r[0] == inf);
  CHECK(r[1] == -inf);
  CHECK(std::isnan(r[2]));
  auto m = to_doubles(run("function (A[N]) -> (R, M) { R = A / 0.0; M = max(R, 2.0); }", {a})[1]);
  CHECK(m == std::vector<double>{inf, 2, 2});  // maxNum: NaN ignored
}

TEST_CASE("integer division truncates toward zero, and / 0 and % 0 give 0") {
  HostTensor a = make_tensor(DType::I32, {6}, {7, -7, 7, -7, 5, -2147483648.0});
  HostTensor b = make_tensor(DType::I32, {6}, {2, 2, -2, -2, 0, -1});
  auto div = to_doubles(run1("function (A[N], B[N]) -> (R) { R = A / B; }", {a, b}));
  CHECK(div == std::vector<double>{3, -3, -3, 3, 0, -2147483648.0});  // INT_MIN / -1 wraps
  auto mod = to_doubles(run1("function (A[N], B[N]) -> (R) { R = A % B; }", {a, b}));
  CHECK(mod == std::vector<double>{1, -1, 1, -1, 0, 0});
  HostTensor u = make_tensor(DType::U8, {3}, {200, 7, 9});
  HostTensor v = make_tensor(DType::U8, {3}, {7, 0, 4});
  CHECK(to_doubles(run1("function (A[N], B[N]) -> (R) { R = A / B; }", {u, v})) ==
        std::vector<double>{28, 0, 2});
  CHECK(to_doubles(run1("function (A[N], B[N]) -> (R) { R = A % B; }", {u, v})) ==
        std::vector<double>{4, 0, 1});
}

TEST_CASE("integer arithmetic wraps in the dtype") {
  HostTensor a = make_tensor(DType::I8, {3}, {100, -100, -128});
  auto out =
      run("function (A[N]) -> (R, S, T, U) { R = A + A; S = A * 3; T = -A; U = abs(A); }", {a});
  CHECK(out[0].shape.dtype == DType::I8);
  CHECK(to_doubles(out[0]) == std::vector<double>{-56, 56, 0});
  CHECK(to_doubles(out[1]) == std::vector<double>{44, -44, -128});  // 300-256, -300+256, -384+256
  CHECK(to_doubles(out[2]) == std::vector<double>{-100, 100, -128});
  CHECK(to_doubles(out[3]) == std::vector<double>{100, 100, -128});
  HostTensor u = make_tensor(DType::U16, {2}, {1, 65535});
  CHECK(to_doubles(run1("function (A[N]) -> (R) { R = A + 1; }", {u})) ==
        std::vector<double>{2, 0});
  CHECK(to_doubles(run1("function (A[N]) -> (R) { R = 0 - A; }", {u})) ==
        std::vector<double>{65535, 1});
}

TEST_CASE("bitwise ops and shifts, including shifts past the width") {
  HostTensor a = make_tensor(DType::I32, {4}, {12, -16, 5, 1});
  HostTensor s = make_tensor(DType::I32, {4}, {2, 2, 32, 31});
  auto run2 = [&](const std::string& e) {
    return to_doubles(run1("function (A[N], S[N]) -> (R) { R = " + e + "; }", {a, s}));
  };
  CHECK(run2("A & 10") == std::vector<double>{8, 0, 0, 0});
  CHECK(run2("A | 3") == std::vector<double>{15, -13, 7, 3});
  CHECK(run2("A ^ 5") == std::vector<double>{9, -11, 0, 4});
  CHECK(run2("~A") == std::vector<double>{-13, 15, -6, -2});
  CHECK(run2("A << S") == std::vector<double>{48, -64, 0, -2147483648.0});
  CHECK(run2("A >> S") == std::vector<double>{3, -4, 0, 0});  // arithmetic; >= width gives 0
  HostTensor u = make_tensor(DType::U8, {3}, {0xF0, 0x81, 1});
  HostTensor k = make_tensor(DType::U8, {3}, {4, 1, 8});
  CHECK(to_doubles(run1("function (A[N], K[N]) -> (R) { R = A << K; }", {u, k})) ==
        std::vector<double>{0, 2, 0});
  CHECK(to_doubles(run1("function (A[N], K[N]) -> (R) { R = A >> K; }", {u, k})) ==
        std::vector<double>{15, 64, 0});
  CHECK(to_doubles(run1("function (A[N]) -> (R) { R = ~A; }", {u})) ==
        std::vector<double>{0x0F, 0x7E, 0xFE});
  HostTensor b = make_tensor(DType::Bool, {2}, {0, 1});
  auto nb = run1("function (A[N]) -> (R) { R = ~A; }", {b});
  CHECK(nb.shape.dtype == DType::Bool);
  CHECK(to_doubles(nb) == std::vector<double>{1, 0});
}

TEST_CASE("integer numeric functions") {
  HostTensor a = make_tensor(DType::I32, {4}, {-5, 0, 3, 1});
  auto f = [&](const std::string& e) {
    return to_doubles(run1("function (A[N]) -> (R) { R = " + e + "; }", {a}));
  };
  CHECK(f("abs(A)") == std::vector<double>{5, 0, 3, 1});
  CHECK(f("sign(A)") == std::vector<double>{-1, 0, 1, 1});
  CHECK(f("relu(A)") == std::vector<double>{0, 0, 3, 1});
  CHECK(f("max(A, 1)") == std::vector<double>{1, 1, 3, 1});
  CHECK(f("min(A, 1)") == std::vector<double>{-5, 0, 1, 1});
  CHECK(f("A * A - 2 * A") == std::vector<double>{35, 0, 3, -1});
}

TEST_CASE("select and the conditional operator") {
  HostTensor c = make_tensor(DType::Bool, {3}, {1, 0, 1});
  HostTensor a = f32({3}, {1, 2, 3});
  HostTensor b = f32({3}, {10, 20, 30});
  check_tensor(run1("function (C[N], A[N], B[N]) -> (R) { R = select(C, A, B); }", {c, a, b}),
               f32({3}, {1, 20, 3}));
  check_tensor(run1("function (A[N], B[N]) -> (R) { R = A > 1 ? A : B; }", {a, b}),
               f32({3}, {10, 2, 3}));
  // A float condition is true when non-zero.
  HostTensor fc = f32({3}, {0, -0.5, 2});
  check_tensor(run1("function (C[N], A[N], B[N]) -> (R) { R = select(C, A, B); }", {fc, a, b}),
               f32({3}, {10, 2, 3}));
}

TEST_CASE("numpy broadcasting") {
  HostTensor m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor row = f32({3}, {10, 20, 30});
  HostTensor col = f32({2, 1}, {100, 200});
  check_tensor(run1("function (M[A, B], R[B]) -> (O) { O = M + R; }", {m, row}),
               f32({2, 3}, {11, 22, 33, 14, 25, 36}));
  check_tensor(run1("function (M[A, B], C[A, _]) -> (O) { O = M * C; }", {m, col}),
               f32({2, 3}, {100, 200, 300, 800, 1000, 1200}));
  check_tensor(run1("function (C[A, _], R[B]) -> (O) { O = C + R; }", {col, row}),
               f32({2, 3}, {110, 120, 130, 210, 220, 230}));
  HostTensor s = f32({}, {0.5});
  check_tensor(run1("function (M[A, B], S[]) -> (O) { O = M * S; }", {m, s}),
               f32({2, 3}, {0.5, 1, 1.5, 2, 2.5, 3}));
}

TEST_CASE("casts: rounding, truncation, saturation, wrapping, bool") {
  HostTensor x = make_tensor(DType::F32, {5}, {1.7, -1.7, 300, -300, 0});
  auto cast = [&](const std::string& c) {
    HostTensor r = run1("function (X[N]) -> (R) { R = " + c + "; }", {x});
    return std::make_pair(r.shape.dtype, to_doubles(r));
  };
  CHECK(cast("as_int(X, 8)") ==
        std::make_pair(DType::I8, std::vector<double>{1, -1, 127, -128, 0}));
  CHECK(cast("as_uint(X, 8)") == std::make_pair(DType::U8, std::vector<double>{1, 0, 255, 0, 0}));
  CHECK(cast("as_int(X, 32)") ==
        std::make_pair(DType::I32, std::vector<double>{1, -1, 300, -300, 0}));
  CHECK(cast("as_bool(X)") == std::make_pair(DType::Bool, std::vector<double>{1, 1, 1, 1, 0}));
  auto f16 = cast("as_float(X, 16)");
  CHECK(f16.first == DType::F16);
  CHECK(f16.second[0] == 1.7001953125);  // nearest f16 to 1.7f
  auto bf = cast("as_bfloat(X, 16)");
  CHECK(bf.first == DType::BF16);
  CHECK(bf.second[0] == 1.703125);  // nearest bf16 to 1.7f
  // Integer to integer casts wrap; to float they round.
  HostTensor i = make_tensor(DType::I32, {3}, {300, -1, 16777217});
  CHECK(to_doubles(run1("function (X[N]) -> (R) { R = as_uint(X, 8); }", {i})) ==
        std::vector<double>{44, 255, 1});
  CHECK(to_doubles(run1("function (X[N]) -> (R) { R = as_float(X, 32); }", {i})) ==
        std::vector<double>{300, -1, 16777216});
}

TEST_CASE("dtype rules: literals yield to tensors, comparisons give bool") {
  HostTensor h = make_tensor(DType::F16, {2}, {1, 2049});
  HostTensor r = run1("function (H[N]) -> (R) { R = H * 2; }", {h});
  CHECK(r.shape.dtype == DType::F16);
  CHECK(to_doubles(r) == std::vector<double>{2, 4096});  // 2049 is 2048 in f16
  HostTensor i8 = make_tensor(DType::I8, {2}, {1, -3});
  HostTensor f = run1("function (I[N]) -> (R) { R = I + 0.5; }", {i8});
  CHECK(f.shape.dtype == DType::F32);
  CHECK(to_doubles(f) == std::vector<double>{1.5, -2.5});
  HostTensor c = run1("function (I[N]) -> (R) { R = I < 0; }", {i8});
  CHECK(c.shape.dtype == DType::Bool);
  CHECK(to_doubles(c) == std::vector<double>{0, 1});
  // Mixed signedness: u8 with i8 computes in i16.
  HostTensor u8 = make_tensor(DType::U8, {2}, {255, 0});
  HostTensor m = run1("function (U[N], I[N]) -> (R) { R = U + I; }", {u8, i8});
  CHECK(m.shape.dtype == DType::I16);
  CHECK(to_doubles(m) == std::vector<double>{256, -3});
  // Integer math functions compute in f32.
  HostTensor e = run1("function (I[N]) -> (R) { R = exp(I); }", {i8});
  CHECK(e.shape.dtype == DType::F32);
  CHECK(to_doubles(e)[0] == static_cast<float>(std::exp(1.0)));
}

TEST_CASE("literal-only expressions stay exact until a tensor takes them") {
  HostTensor x = make_tensor(DType::F64, {1}, {3});
  auto r = to_doubles(run1("function (X[N]) -> (R) { R = X * (1.0 / 3.0); }", {x}));
  CHECK(r[0] == 3 * (1.0 / 3.0));  // 1/3 in double, not rounded to f32 first
}

}  // namespace
}  // namespace plaidml::eval::test
