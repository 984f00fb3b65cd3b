// plaidml.hpp: RAII handles, exceptions and the EDSL, checked against hand-computed values.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <plaidml/plaidml.hpp>
#include <string>
#include <vector>

namespace {

using plaidml::Buffer;
using plaidml::Builder;
using plaidml::Context;
using plaidml::Program;

std::vector<float> run1(Context& ctx, const Program& program, const plaidml::Bindings& inputs,
                        const std::string& output) {
  auto outputs = ctx.run(program, inputs);
  return outputs.at(output).read<float>();
}

TEST_CASE("plaidml.hpp edsl: matmul with C(i, j) += A(i, k) * B(k, j)") {
  Builder b("matmul");
  auto A = b.input("A", {"M", "K"});
  auto B = b.input("B", {"K", "N"});
  auto i = b.index("i"), j = b.index("j"), k = b.index("k");
  auto C = b.contraction({b.dim("M"), b.dim("N")});
  C(i, j) += A(i, k) * B(k, j);
  b.output("C", C);
  Program program = b.build();
  CHECK(program.inputs() == std::vector<std::string>{"A", "B"});
  CHECK(program.outputs() == std::vector<std::string>{"C"});
  // Same program as the Tile text: identical printed form.
  auto parsed = Program::from_tile(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }");
  CHECK(program.str() == parsed.str());

  Context ctx;
  auto a = Buffer::from<float>(ctx, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto bb = Buffer::from<float>(ctx, {3, 2}, {7, 8, 9, 10, 11, 12});
  auto outputs = ctx.run(program, {{"A", a}, {"B", bb}});
  CHECK(outputs.at("C").dims() == std::vector<int64_t>{2, 2});
  CHECK(outputs.at("C").dtype() == plaidml::DType::F32);
  CHECK(outputs.at("C").read<float>() == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("plaidml.hpp edsl: max, min and product aggregations") {
  Builder b("reduce");
  auto X = b.input("X", {"R", "S"});
  auto i = b.index("i"), j = b.index("j");
  auto mx = b.contraction({b.dim("R")});
  mx(i) >= X(i, j);
  auto mn = b.contraction({b.dim("R")});
  mn(i).min(X(i, j));
  auto pr = b.contraction({b.dim("S")});
  pr(j) *= X(i, j);
  b.output("Max", mx);
  b.output("Min", mn);
  b.output("Prod", pr);
  Program program = b.build();

  Context ctx;
  // X = [[3 -1 2] [0.5 4 -2]]
  auto x = Buffer::from<float>(ctx, {2, 3}, {3, -1, 2, 0.5f, 4, -2});
  auto out = ctx.run(program, {{"X", x}});
  CHECK(out.at("Max").read<float>() == std::vector<float>{3, 4});
  CHECK(out.at("Min").read<float>() == std::vector<float>{-1, -2});
  CHECK(out.at("Prod").read<float>() == std::vector<float>{1.5f, -4, -4});
}

TEST_CASE("plaidml.hpp edsl: constraints, default and assign") {
  Builder b("cumsum");
  auto X = b.input("X", {"N"});
  auto i = b.index("i"), k = b.index("k");
  auto N = b.dim("N");
  auto S = b.contraction({N});
  S(i) += X(k);
  S.where(i - k < N);
  auto D = b.contraction({N});
  D(i) += X(i);
  D.set_default(b.constant(10.0));
  auto T = b.contraction({N});
  T(i) = X(N - 1 - i);  // reverse
  b.output("S", S);
  b.output("D", D);
  b.output("T", T);
  Program program = b.build();

  Context ctx;
  auto x = Buffer::from<float>(ctx, {4}, {1, 2, 3, 4});
  auto out = ctx.run(program, {{"X", x}});
  CHECK(out.at("S").read<float>() == std::vector<float>{1, 3, 6, 10});
  CHECK(out.at("D").read<float>() == std::vector<float>{11, 12, 13, 14});
  CHECK(out.at("T").read<float>() == std::vector<float>{4, 3, 2, 1});
}

TEST_CASE("plaidml.hpp edsl: elementwise operators and named functions") {
  Builder b("elementwise");
  auto A = b.input("A", {"N"});
  auto B = b.input("B", {"N"});
  b.output("Sum2", (A + B) * 2);
  b.output("Relu", plaidml::relu(A - B));
  b.output("Exp", plaidml::exp(A));
  b.output("Sel", plaidml::select(A > B, A, B));
  b.output("Neg", -A / 2.0);
  Program program = b.build();

  Context ctx;
  auto a = Buffer::from<float>(ctx, {3}, {1, -2, 3});
  auto bb = Buffer::from<float>(ctx, {3}, {0.5f, 1, 4});
  auto out = ctx.run(program, {{"A", a}, {"B", bb}});
  CHECK(out.at("Sum2").read<float>() == std::vector<float>{3, -2, 14});
  CHECK(out.at("Relu").read<float>() == std::vector<float>{0.5f, 0, 0});
  auto e = out.at("Exp").read<float>();
  CHECK(e[0] == doctest::Approx(std::exp(1.0)).epsilon(1e-5));
  CHECK(e[1] == doctest::Approx(std::exp(-2.0)).epsilon(1e-5));
  CHECK(out.at("Sel").read<float>() == std::vector<float>{1, 1, 4});
  CHECK(out.at("Neg").read<float>() == std::vector<float>{-0.5f, 1, -1.5f});
}

TEST_CASE("plaidml.hpp edsl: ternary combination, comparisons and casts") {
  // Index of each row's maximum: M(i) = max_j X(i, j); O(i) = sum_j (X(i, j) == M(i) ? J(j)).
  Builder b("argmax");
  auto X = b.input("X", {"R", "S"});
  auto J = b.input("J", {"S"});
  auto i = b.index("i"), j = b.index("j");
  auto M = b.contraction({b.dim("R")});
  M(i) >= X(i, j);
  plaidml::Tensor m = M;
  auto O = b.contraction({b.dim("R")});
  O(i) += plaidml::cond(X(i, j) == m(i), J(j));
  b.output("O", O);
  b.output("Big", plaidml::as_int(X > 2.0, 32));
  Program program = b.build();

  Context ctx;
  auto x = Buffer::from<float>(ctx, {2, 3}, {3, -1, 2, 0.5f, 4, -2});
  auto jj = Buffer::from<float>(ctx, {3}, {0, 1, 2});
  auto out = ctx.run(program, {{"X", x}, {"J", jj}});
  CHECK(out.at("O").read<float>() == std::vector<float>{0, 1});
  CHECK(out.at("Big").read<int32_t>() == std::vector<int32_t>{1, 0, 0, 0, 1, 0});
}

TEST_CASE("plaidml.hpp edsl: errors are plaidml::Error with status and message") {
  try {
    Program::from_tile("function (A[N]) -> (B) {\n  B = foo(A);\n}\n");
    FAIL("expected an error");
  } catch (const plaidml::Error& e) {
    CHECK(e.status() == PLAIDML_STATUS_NOT_FOUND);
    CHECK(std::string(e.what()).find("unknown function 'foo'") != std::string::npos);
  }
  Builder b;
  auto A = b.input("A", {"N"});
  CHECK_THROWS_WITH_AS(plaidml::call("frobnicate", {A}), doctest::Contains("frobnicate"),
                       plaidml::Error);
  b.output("R", A * 2);
  Program program = b.build();
  Context ctx;
  try {
    ctx.run(program, {});
    FAIL("expected an error");
  } catch (const plaidml::Error& e) {
    CHECK(e.status() == PLAIDML_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("missing input 'A'") != std::string::npos);
  }
  auto ints = Buffer::from<int32_t>(ctx, {2}, {1, 2});
  CHECK_THROWS_AS(ints.read<float>(), plaidml::Error);
  CHECK(ints.read<int32_t>() == std::vector<int32_t>{1, 2});
  try {
    ctx.select_device("gpu:9");
    FAIL("expected an error");
  } catch (const plaidml::Error& e) {
    CHECK(e.status() == PLAIDML_STATUS_NOT_FOUND);
  }
}

TEST_CASE("plaidml.hpp: a run over the memory limit throws OUT_OF_MEMORY with the figures") {
  // C is 4 x 5 floats, 80 bytes; with A's 16 the peak is 96.
  auto program = Program::from_tile("function (A[N]) -> (C) { C[i, j : N, 5] = +(A[i]); }");
  Context::Options options;
  options.memory_limit = 95;
  Context ctx(options);
  auto a = Buffer::from<float>(ctx, {4}, {1, 2, 3, 4});
  try {
    ctx.run(program, {{"A", a}});
    FAIL("expected an error");
  } catch (const plaidml::Error& e) {
    CHECK(e.status() == PLAIDML_STATUS_OUT_OF_MEMORY);
    CHECK(std::string(e.what()).find("needs 96 B (inputs 16 B, outputs 80 B, intermediates 0 B, "
                                     "constants 0 B), but the context's memory limit is 95 B "
                                     "(PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)") !=
          std::string::npos);
  }
  options.memory_limit = -1;
  CHECK_THROWS_AS(Context{options}, plaidml::Error);
}

TEST_CASE("plaidml.hpp: compile warm-up, stats, devices and outputs into given buffers") {
  auto program = Program::from_tile("function (A[N]) -> (R) { R = A * A; }");
  Context ctx;
  CHECK(ctx.device() == "cpu:0");
  auto devices = ctx.devices();
  REQUIRE(!devices.empty());
  CHECK(devices[0].id == "cpu:0");
  CHECK(devices[0].available);
  ctx.compile(program, {{"A", {plaidml::DType::F32, {3}}}});
  CHECK(ctx.stats().compiles == 1);
  auto a = Buffer::from<float>(ctx, {3}, {1, 2, 3});
  Buffer r(ctx, plaidml::DType::F32, {3});
  ctx.run(program, {{"A", a}}, {{"R", r}});
  CHECK(r.read<float>() == std::vector<float>{1, 4, 9});
  auto stats = ctx.stats();
  CHECK(stats.compiles == 1);
  CHECK(stats.cache_hits == 1);
  CHECK(!plaidml::version().empty());
}

}  // namespace

namespace {

using plaidml::Tensor;

// One use of each plaidml.hpp wrapper, by the Tile name it calls; x is a float vector. U: a
// function of x, B: of (x, x), O: an operator expression, I: on x's integer form.
#define U(f) [](const Tensor& x) { return plaidml::f(x); }
#define B(f) [](const Tensor& x) { return plaidml::f(x, x); }
#define O(e) [](const Tensor& x) { return e; }
#define I(e) [](const Tensor& x) { auto i = plaidml::as_int(x * 0, 32); return e; }
std::map<std::string, std::function<Tensor(const Tensor&)>> wrappers() {
  return {
      {"add", O(x + x)},
      {"sub", O(x - x)},
      {"mul", O(x * x)},
      {"div", O(x / x)},
      {"mod", O(x % x)},
      {"neg", O(-x)},
      {"cmp_eq", B(eq)},
      {"cmp_ne", B(ne)},
      {"cmp_lt", O(x < x)},
      {"cmp_gt", O(x > x)},
      {"cmp_le", O(x <= x)},
      {"cmp_ge", O(x >= x)},
      {"bit_and", I(i & i)},
      {"bit_or", I(i | i)},
      {"bit_xor", I(i ^ i)},
      {"bit_not", I(~i)},
      {"bit_left", I(i << i)},
      {"bit_right", I(i >> i)},
      {"exp", U(exp)},
      {"log", U(log)},
      {"sqrt", U(sqrt)},
      {"pow", B(pow)},
      {"tanh", U(tanh)},
      {"sin", U(sin)},
      {"cos", U(cos)},
      {"tan", U(tan)},
      {"sinh", U(sinh)},
      {"cosh", U(cosh)},
      {"asin", U(asin)},
      {"acos", U(acos)},
      {"atan", U(atan)},
      {"asinh", U(asinh)},
      {"acosh", U(acosh)},
      {"atanh", U(atanh)},
      {"erf", U(erf)},
      {"floor", U(floor)},
      {"ceil", U(ceil)},
      {"round", U(round)},
      {"round_even", U(round_even)},
      {"sigmoid", U(sigmoid)},
      {"abs", U(abs)},
      {"sign", U(sign)},
      {"recip", U(recip)},
      {"max", B(max)},
      {"min", B(min)},
      {"relu", U(relu)},
      {"bitcast", U(bitcast)},
      {"select", O(plaidml::select(x > 0, x, x))},
      {"isnan", U(isnan)},
      {"isinf", U(isinf)},
      {"as_float", O(plaidml::as_float(x, 64))},
      {"as_bfloat", U(as_bfloat)},
      {"as_int", O(plaidml::as_int(x, 32))},
      {"as_uint", O(plaidml::as_uint(x, 8))},
      {"as_bool", U(as_bool)},
      {"reshape", O(plaidml::reshape(x, {x.dim(0)}))},
      {"index", O(plaidml::index(x, 0))},
      {"shape", U(shape)},
      {"gather", I(plaidml::gather(x, i))},
      {"scatter", I(plaidml::scatter(x, i, x))},
  };
}
#undef U
#undef B
#undef O
#undef I

}  // namespace

TEST_CASE("plaidml.hpp wraps every elementwise function the library lists") {
  // The random-number steps are reached through the op library's random ops, not wrapped.
  const std::set<std::string> not_wrapped = {"prng_step", "prng_state", "prng_value"};
  auto table = wrappers();
  for (const std::string& name : plaidml::function_names()) {
    CAPTURE(name);
    if (not_wrapped.count(name)) continue;
    auto wrapper = table.find(name);
    REQUIRE_MESSAGE(wrapper != table.end(), "plaidml.hpp has no wrapper for '" << name << "'");
    Builder b("one");
    b.output("Y", wrapper->second(b.input("X", {"N"})));
    // The wrapper called the function it is listed under: the program's text names it.
    std::string text = b.build().str();
    bool is_operator = name.rfind("cmp_", 0) == 0 || name.rfind("bit_", 0) == 0 ||
                       name == "add" || name == "sub" || name == "mul" || name == "div" ||
                       name == "mod" || name == "neg" || name == "select";  // printed c ? a : b
    if (!is_operator) CHECK(text.find(name + "(") != std::string::npos);
  }
}

TEST_CASE("plaidml.hpp edsl: the hyperbolic and inverse trigonometric functions") {
  Builder b("trig");
  auto X = b.input("X", {"N"});
  b.output("A", plaidml::sinh(X) + plaidml::cosh(X) + plaidml::asinh(X));
  b.output("B", plaidml::asin(X) + plaidml::acos(X) + plaidml::atan(X) + plaidml::atanh(X));
  b.output("C", plaidml::acosh(X + 1.5f));
  Program program = b.build();
  Context ctx;
  std::vector<float> x = {-0.5f, 0.0f, 0.25f, 0.75f};
  auto outputs = ctx.run(program, {{"X", Buffer::from<float>(ctx, {4}, x)}});
  auto a = outputs.at("A").read<float>(), bv = outputs.at("B").read<float>(),
       c = outputs.at("C").read<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    CHECK(a[i] == doctest::Approx(std::sinh(v) + std::cosh(v) + std::asinh(v)).epsilon(1e-5));
    CHECK(bv[i] == doctest::Approx(std::asin(v) + std::acos(v) + std::atan(v) + std::atanh(v))
                       .epsilon(1e-5));
    CHECK(c[i] == doctest::Approx(std::acosh(v + 1.5)).epsilon(1e-5));
  }
}
