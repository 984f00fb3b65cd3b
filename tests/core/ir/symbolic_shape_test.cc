// Symbolic dims of builder values (ir/symbolic_shape.h), the size-expression constructors, and
// floordiv in sizes and index expressions. Expected values are hand-computed.
#include "core/ir/symbolic_shape.h"

#include <doctest/doctest.h>

#include <limits>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/ir/builder.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "support/tensors.h"

namespace plaidml::ir {
namespace {

namespace se = size_expr;

std::string print_dims(const SymbolicDims& dims) {
  std::string out;
  for (const auto& d : dims) out += (out.empty() ? "" : ", ") + print_int_expr(*d);
  return "[" + out + "]";
}

std::string dims_text(ProgramBuilder& b, ValueId id) {
  auto dims = b.dims_of(id);
  REQUIRE_MESSAGE(dims.has_value(), dims.status().message());
  return print_dims(*dims);
}

TEST_CASE("size expressions fold literals and simplify identities") {
  auto n = IntExpr::dim("N");
  CHECK(print_int_expr(*se::add(se::lit(2), se::lit(3))) == "5");
  CHECK(print_int_expr(*se::add(n, se::lit(0))) == "N");
  CHECK(print_int_expr(*se::mul(se::lit(1), n)) == "N");
  CHECK(print_int_expr(*se::mul(se::lit(0), n)) == "0");
  CHECK(print_int_expr(*se::sub(n, n)) == "0");
  CHECK(print_int_expr(*se::floordiv(se::lit(-7), se::lit(2))) == "-4");
  CHECK(print_int_expr(*se::floordiv(se::lit(7), se::lit(2))) == "3");
  CHECK(print_int_expr(*se::floordiv(n, se::lit(2))) == "floordiv(N, 2)");
  CHECK(print_int_expr(*se::max(n, n)) == "N");
  CHECK(print_int_expr(*se::broadcast(se::lit(1), n)) == "N");
  CHECK(print_int_expr(*se::broadcast(n, IntExpr::dim("N"))) == "N");
  CHECK(print_int_expr(*se::broadcast(n, IntExpr::dim("M"))) == "max(N, M) * min(1, min(N, M))");
}

// Found by fuzz_builder_calls (fuzz/regressions/builder_calls/neg_int64_min): folding asked
// std::abs(INT64_MIN), which is undefined (UBSan stopped plaidml_expr_neg of that literal).
TEST_CASE("same compares two equal DAGs built apart in time linear in their nodes") {
  // Each level uses the one below twice: as trees both have 2^60 leaves.
  auto chain = [](int64_t last) {
    IntExprPtr e = IntExpr::dim("N");
    for (int k = 0; k < 60; ++k) e = IntExpr::binary(IntOp::kMax, e, e);
    return IntExpr::binary(IntOp::kAdd, e, IntExpr::literal(last));
  };
  CHECK(se::same(*chain(1), *chain(1)));
  CHECK_FALSE(se::same(*chain(1), *chain(2)));
}

TEST_CASE("exact_binary leaves literals of 2^31 or more unfolded, INT64_MIN included") {
  const int64_t min = std::numeric_limits<int64_t>::min();
  CHECK(print_int_expr(*exact_binary(IntOp::kNeg, IntExpr::literal(min), nullptr, {})) ==
        "-(-9223372036854775808)");
  CHECK(print_int_expr(*exact_binary(IntOp::kAdd, IntExpr::literal(1), IntExpr::literal(min),
                                     {})) == "1 + -9223372036854775808");
  CHECK(print_int_expr(*exact_binary(IntOp::kMul, IntExpr::literal(int64_t{1} << 31),
                                     IntExpr::literal(2), {})) == "2147483648 * 2");
  CHECK(print_int_expr(*exact_binary(IntOp::kNeg, IntExpr::literal((int64_t{1} << 31) - 1),
                                     nullptr, {})) == "-2147483647");
}

TEST_CASE("dims_of: inputs, contractions, broadcasting and structural ops") {
  ProgramBuilder b("shapes");
  ValueId a = *b.add_input("A", std::vector<std::string>{"M", "K"}, std::nullopt, {});
  ValueId v = *b.add_input("V", std::vector<std::string>{"K"}, std::nullopt, {});
  ValueId u = *b.add_input("U", std::vector<std::string>{"P", "Q"}, std::nullopt, {});
  CHECK(dims_text(b, a) == "[M, K]");
  CHECK(dims_text(b, *b.add_call("add", {a, v}, {}, {})) == "[M, K]");
  CHECK(dims_text(b, *b.add_call("add", {a, u}, {}, {})) ==
        "[max(M, P) * min(1, min(M, P)), max(K, Q) * min(1, min(K, Q))]");
  CHECK(dims_text(b, b.add_float_literal(1.0, {})) == "[]");
  CHECK(dims_text(b, *b.add_call("reshape", {a}, {IntExpr::dim("K"), IntExpr::dim("M")}, {})) ==
        "[K, M]");
  CHECK(dims_text(b, *b.add_call("shape", {a}, {}, {})) == "[2]");
  ValueId idx = *b.add_call("as_int", {v}, {IntExpr::literal(32)}, {});
  CHECK(dims_text(b, *b.add_call("gather", {a, idx}, {}, {})) == "[K, K]");
  Contraction c;
  c.out_indices = {IntExpr::index("i")};
  c.out_sizes = {se::add(IntExpr::dim("M"), se::lit(1))};
  c.inputs.push_back(TensorAccess{a, {IntExpr::index("i"), IntExpr::index("k")}, {}});
  CHECK(dims_text(b, *b.add_contraction(c, {})) == "[M + 1]");
}

TEST_CASE("dims_of names unnamed input dims and reports unknown ranks") {
  ProgramBuilder b("unnamed");
  ValueId x = *b.add_input("X", std::vector<std::string>{"", "N"}, std::nullopt, {});
  ValueId y = *b.add_input("Y", std::nullopt, std::nullopt, {});
  CHECK(dims_text(b, x) == "[X_D0, N]");
  CHECK(b.is_dim("X_D0"));
  auto bad = b.dims_of(*b.add_call("exp", {y}, {}, {}));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().code() == StatusCode::kTypeError);
  CHECK(bad.status().message() == "input 'Y' has an unknown rank; declare its dims to use it here");
}

TEST_CASE("a builder continues an existing program") {
  auto parsed = parse::parse_tile("function (A[N]) -> (B) { T = A * 2; B = exp(T); }");
  REQUIRE(parsed.has_value());
  ProgramBuilder b(**parsed);
  ValueId t = *b.lookup("T", {});
  CHECK(dims_text(b, t) == "[N]");
  ValueId c = *b.add_call("add", {t, t}, {}, {});
  REQUIRE(b.assign("C", c, {}).is_ok());
  REQUIRE(b.add_output("C", {}).is_ok());
  Status again = b.assign("B", c, {});
  CHECK(again.message().find("'B' is assigned twice") != std::string::npos);
  auto p = b.finish();
  REQUIRE(p.has_value());
  CHECK((*p)->outputs.size() == 2);
  CHECK(parse::parse_tile(print_tile(**p)).has_value());
}

TEST_CASE("floordiv in sizes and index expressions, printed and parsed back") {
  // O[i] = I[i + floordiv(N - 1, 2)]: with N = 4 the shift is 1 (rational division would give
  // 3/2 and skip every point).
  const char* text =
      "function (I[N]) -> (O) { O[i : floordiv(N + 1, 2)] = +(I[i + floordiv(N - 1, 2)]); }";
  auto program = parse::parse_tile(text);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto reparsed = parse::parse_tile(print_tile(**program));
  REQUIRE(reparsed.has_value());
  auto bound = bind(*reparsed, {Shape(DType::F32, {4})});
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  auto out = eval::evaluate(*bound, {testing::make_tensor(DType::F32, {4}, {1, 2, 3, 4})});
  REQUIRE(out.has_value());
  CHECK(testing::to_doubles(out->at(0)) == std::vector<double>{2, 3});
  auto neg = parse::parse_tile("function (I[N]) -> (O) { O[i : N] = +(I[i - floordiv(i, 2)]); }");
  REQUIRE_FALSE(neg.has_value());
  CHECK(neg.status().message() ==
        "1:45: index expression 'floordiv(i, 2)' is not affine: max/min/floordiv of index "
        "variables");
}

// Sizes grow with the ops that combine them: broadcasting N against M three levels at a time.
// They stop at kMaxIntExprDepth like every integer expression (their walks recurse per level).
TEST_CASE("dims_of: a symbolic size deeper than the limit is an error") {
  ProgramBuilder b("deep");
  ValueId t = *b.add_input("A", std::vector<std::string>{"N"}, std::nullopt, {});
  ValueId m = *b.add_input("B", std::vector<std::string>{"M"}, std::nullopt, {});
  int adds = 0;
  Expected<SymbolicDims> dims = b.dims_of(t);
  while (dims.has_value() && adds < 1000) {
    t = *b.add_call("add", {t, m}, {}, {});
    ++adds;
    dims = b.dims_of(t);
  }
  REQUIRE_FALSE(dims.has_value());
  CHECK(dims.status().code() == StatusCode::kInvalidArgument);
  CHECK(adds == 334);  // 1 + 3 * 333 = 1000 levels still fit
  CHECK(dims.status().message() ==
        "the symbolic size of add's result is nested too deeply (1003 levels; at most 1000)");
}

}  // namespace
}  // namespace plaidml::ir

namespace plaidml::ir {
namespace {

TEST_CASE("an inlined dim expression keeps its grouping when printed and parsed back") {
  ProgramBuilder b("grouping");
  ValueId x = *b.add_input("X", std::vector<std::string>{"M", "N"}, std::nullopt, {});
  ValueId count = *b.add_dim_literal(size_expr::mul(IntExpr::dim("M"), IntExpr::dim("N")), {});
  ValueId r = *b.add_call("div", {x, count}, {}, {});
  REQUIRE(b.assign("R", r, {}).is_ok());
  REQUIRE(b.add_output("R", {}).is_ok());
  auto program = b.finish();
  REQUIRE(program.has_value());
  std::string text = print_tile(**program);
  CHECK(text.find("X / (M * N)") != std::string::npos);
  auto reparsed = parse::parse_tile(text);
  REQUIRE(reparsed.has_value());
  auto bound = bind(*reparsed, {Shape(DType::F32, {2, 3})});
  REQUIRE(bound.has_value());
  auto out =
      eval::evaluate(*bound, {testing::make_tensor(DType::F32, {2, 3}, {6, 12, 18, 6, 6, 6})});
  REQUIRE(out.has_value());
  CHECK(testing::to_doubles(out->at(0)) == std::vector<double>{1, 2, 3, 1, 1, 1});
}

// Sizes grow with the ops that combine them: broadcasting N against M three levels at a time.
// They stop at kMaxIntExprDepth like every integer expression (their walks recurse per level).
TEST_CASE("dims_of: a symbolic size deeper than the limit is an error") {
  ProgramBuilder b("deep");
  ValueId t = *b.add_input("A", std::vector<std::string>{"N"}, std::nullopt, {});
  ValueId m = *b.add_input("B", std::vector<std::string>{"M"}, std::nullopt, {});
  int adds = 0;
  Expected<SymbolicDims> dims = b.dims_of(t);
  while (dims.has_value() && adds < 1000) {
    t = *b.add_call("add", {t, m}, {}, {});
    ++adds;
    dims = b.dims_of(t);
  }
  REQUIRE_FALSE(dims.has_value());
  CHECK(dims.status().code() == StatusCode::kInvalidArgument);
  CHECK(adds == 334);  // 1 + 3 * 333 = 1000 levels still fit
  CHECK(dims.status().message() ==
        "the symbolic size of add's result is nested too deeply (1003 levels; at most 1000)");
}

}  // namespace
}  // namespace plaidml::ir
