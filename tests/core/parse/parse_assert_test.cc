// Assertions (Tile `assert`, docs/tile.md section 1.3): parsed, printed back, checked at bind
// with their messages filled in, and part of the program's identity.
#include <doctest/doctest.h>

#include "core/ir/bind.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

std::shared_ptr<const ir::Program> parsed_ok(const std::string& text) {
  auto p = parse_tile(text);
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

const char* kAssertingProgram = R"(function (A[N, K], B[K2, M]) -> (R) {
  assert K == K2, "matmul: 'a' has {0} columns but 'b' has {1} rows", K, K2;
  assert N >= 2, "need {0} >= 2 rows", N;
  assert broadcastable(N, M), "{0} and {1} do not broadcast", N, M;
  assert multiple(K, 2), "\"K\" ({0}) is odd\\", K;
  R[i, j : N, M] = +(A[i, k] * B[k, j]);
}
)";

Status bind_error(const std::string& text, std::vector<int64_t> a, std::vector<int64_t> b) {
  auto bound = ir::bind(parsed_ok(text), {Shape(DType::F32, a), Shape(DType::F32, b)});
  return bound.status();
}

TEST_CASE("assert: parses, prints back the same text, and keeps its order and escapes") {
  auto p = parsed_ok(kAssertingProgram);
  REQUIRE(p->assertions.size() == 4);
  CHECK(p->assertions[0].op == ir::AssertOp::kEq);
  CHECK(p->assertions[1].op == ir::AssertOp::kGe);
  CHECK(p->assertions[2].op == ir::AssertOp::kBroadcast);
  CHECK(p->assertions[3].op == ir::AssertOp::kMultiple);
  CHECK(p->assertions[3].message == "\"K\" ({0}) is odd\\");
  CHECK(p->assertions[0].args.size() == 2);
  CHECK(ir::print_tile(*p) == kAssertingProgram);
}

TEST_CASE("assert: each condition is checked at bind with its message and the bound sizes") {
  CHECK(bind_error(kAssertingProgram, {2, 4}, {4, 2}).is_ok());
  Status eq = bind_error(kAssertingProgram, {2, 4}, {3, 2});
  CHECK(eq.code() == StatusCode::kTypeError);
  CHECK(eq.message() == "2:3: matmul: 'a' has 4 columns but 'b' has 3 rows");
  CHECK(bind_error(kAssertingProgram, {1, 4}, {4, 1}).message() == "3:3: need 1 >= 2 rows");
  CHECK(bind_error(kAssertingProgram, {3, 4}, {4, 2}).message() == "4:3: 3 and 2 do not broadcast");
  CHECK(bind_error(kAssertingProgram, {2, 3}, {3, 2}).message() == "5:3: \"K\" (3) is odd\\");
}

TEST_CASE("assert: a condition the literals decide fails while parsing, or is dropped") {
  auto p = parse_tile("function (A[N]) -> (R) {\n  assert 3 == 4, \"{0} is not {1}\", 3, N;\n"
                      "  R = A;\n}\n");
  REQUIRE_FALSE(p.has_value());
  CHECK(p.status().code() == StatusCode::kTypeError);
  CHECK(p.status().message() == "2:3: 3 is not N");
  CHECK(parsed_ok("function (A[N]) -> (R) {\n  assert N == N, \"x\";\n  assert broadcastable(N, 1), "
           "\"y\";\n  R = A;\n}\n")
            ->assertions.empty());
}

TEST_CASE("assert: errors in the statement") {
  auto err = [](const std::string& body) {
    auto p = parse_tile("function (A[N]) -> (R) {\n  " + body + "\n  R = A;\n}\n");
    REQUIRE_FALSE(p.has_value());
    return p.status().message();
  };
  CHECK(err("assert N < 2, \"m\";") == "2:12: expected '==' or '>=' in the assertion, found '<'");
  CHECK(err("assert N == 2;") == "2:16: expected ',' before the assertion's message, found ';'");
  CHECK(err("assert N == 2, N;") ==
        "2:18: expected the assertion's message in quotes, found 'N'");
  CHECK(err("assert N == M, \"m\";") == "2:15: unknown dimension 'M'");
  CHECK(err("assert N == i, \"m\";") == "2:15: index variable 'i' cannot appear in an assertion");
}

TEST_CASE("assert: part of the program's identity (fingerprint)") {
  auto base = parsed_ok("function (A[N]) -> (R) {\n  R = A;\n}\n");
  auto with = parsed_ok("function (A[N]) -> (R) {\n  assert N >= 1, \"m\";\n  R = A;\n}\n");
  auto other = parsed_ok("function (A[N]) -> (R) {\n  assert N >= 2, \"m\";\n  R = A;\n}\n");
  CHECK(base->fingerprint() != with->fingerprint());
  CHECK(with->fingerprint() != other->fingerprint());
}

}  // namespace
}  // namespace plaidml::parse
