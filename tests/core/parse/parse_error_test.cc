// Every error the parser reports: status code and the exact message with its line:column.
#include <doctest/doctest.h>

#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

void check_error(const std::string& text, StatusCode code, const std::string& message) {
  auto p = parse_tile(text);
  CAPTURE(text);
  REQUIRE_FALSE(p.has_value());
  CHECK(p.status().message() == message);
  CHECK(p.status().code() == code);
}

constexpr auto kParse = StatusCode::kParseError;
constexpr auto kNotFound = StatusCode::kNotFound;
constexpr auto kInvalid = StatusCode::kInvalidArgument;

TEST_CASE("lexer errors") {
  check_error("function (A) -> (R) { R = A $ 2; }", kParse, "1:29: unexpected character '$'");
  check_error("function (A) -> (R) { R = A \x01; }", kParse, "1:29: unexpected character '\\x01'");
  check_error("function (A) -> (R) {\n R = A + 1e; }", kParse, "2:10: malformed number '1e'");
  check_error("function (A) -> (R) { R = A + 12ab; }", kParse, "1:31: malformed number '12ab'");
  check_error("function (A) -> (R) { R = A + 1.5.2x; }", kParse, "1:34: malformed number '.2x'");
}

TEST_CASE("program structure errors") {
  check_error("", kParse, "1:1: empty program: expected 'function (inputs) -> (outputs) { ... }'");
  check_error("  # only a comment\n", kParse,
              "2:1: empty program: expected 'function (inputs) -> (outputs) { ... }'");
  check_error("func (A) -> (R) {}", kParse, "1:1: expected 'function', found 'func'");
  check_error("function A) -> (R) {}", kParse,
              "1:10: expected '(' to open the input list, found 'A'");
  check_error("function (A, B -> (R) { R = A; }", kParse,
              "1:16: expected ',' or ')' in the input list, found '->'");
  check_error("function (A, B", kParse,
              "1:15: expected ',' or ')' in the input list, found end of input");
  check_error("function (A, ) -> (R) {}", kParse, "1:14: expected an input name, found ')'");
  check_error("function (A) (R) { R = A; }", kParse,
              "1:14: expected '->' after the input list, found '('");
  check_error("function (A) -> R { R = A; }", kParse,
              "1:17: expected '(' to open the output list, found 'R'");
  check_error("function (A) -> (R S) { R = A; }", kParse,
              "1:20: expected ',' or ')' in the output list, found 'S'");
  check_error("function (A) -> (1) { }", kParse, "1:18: expected an output name, found '1'");
  check_error("function (A) -> (R) R = A; }", kParse,
              "1:21: expected '{' to open the function body, found 'R'");
  check_error("function (A) -> (R) {\n  R = A;\n", kParse,
              "3:1: expected '}' to close the function body, found end of input");
  check_error("function (A) -> (R) { R = A; } extra", kParse,
              "1:32: expected end of input after the function body, found 'extra'");
  check_error("function (A) -> (R) { }", kNotFound, "1:18: output 'R' is never assigned");
  check_error("function (A) -> () { R = A; }", kInvalid, "1:18: the program has no outputs");
  check_error("function (A) -> (R, R) { R = A; }", kInvalid, "1:21: output 'R' is listed twice");
}

TEST_CASE("input declaration errors") {
  check_error("function (a) -> (R) { R = a; }", kParse,
              "1:11: input name 'a' must start with a capital letter (lowercase names are "
              "index variables)");
  check_error("function (A[M, k]) -> (R) { R = A; }", kParse,
              "1:16: dimension name 'k' must start with a capital letter (lowercase names are "
              "index variables)");
  check_error("function (A[M K]) -> (R) { R = A; }", kParse,
              "1:15: expected ',' or ']' in the dims of 'A', found 'K'");
  check_error("function (A[M, ]) -> (R) { R = A; }", kParse,
              "1:16: expected a dimension name or size in the dims of 'A', found ']'");
  check_error("function (A: f8) -> (R) { R = A; }", kParse,
              "1:14: expected a dtype (f32, i8, ...) for 'A', found 'f8'");
  check_error("function (A, B, A) -> (R) { R = A; }", kInvalid,
              "1:17: duplicate input 'A' (first declared at 1:11)");
  check_error("function (A[N], N) -> (R) { R = A; }", kInvalid,
              "1:17: input 'N' has the name of a dimension of 'A'");
  check_error("function (A, B[A]) -> (R) { R = A; }", kInvalid,
              "1:14: dimension 'A' of input 'B' has the name of a tensor");
}

TEST_CASE("statement errors") {
  check_error("function (A) -> (R) {\n  R = A\n  C = A;\n}", kParse,
              "3:3: expected ';' after statement, found 'C'");
  check_error("function (A) -> (R) { r = A; }", kParse,
              "1:23: tensor name 'r' must start with a capital letter (lowercase names are "
              "index variables)");
  check_error("function (A) -> (R) { R + A; }", kParse,
              "1:25: expected '=' or '[' after 'R', found '+'");
  check_error("function (A) -> (R) { ; }", kParse,
              "1:23: expected a statement (a tensor name), found ';'");
  check_error("function (A) -> (R) {\n  R = A;\n  R = A + 1;\n}", kInvalid,
              "3:3: 'R' is assigned twice (first at 2:3)");
  check_error("function (A) -> (R) { A = 1; R = A; }", kInvalid,
              "1:23: 'A' is an input (declared at 1:11) and cannot be assigned");
  check_error("function (A[N]) -> (R) { N = 1; R = A; }", kInvalid,
              "1:26: 'N' is a dimension of input 'A' and cannot be assigned");
}

TEST_CASE("elementwise expression errors") {
  check_error("function (A) -> (R) { R = Q + A; }", kNotFound, "1:27: unknown tensor 'Q'");
  check_error("function (A) -> (R) {\n  R = foo(A);\n}", kNotFound, "2:7: unknown function 'foo'");
  check_error("function (A) -> (R) { R = A + ; }", kParse,
              "1:31: expected an expression, found ';'");
  check_error("function (A) -> (R) { R = (A + 1; }", kParse, "1:33: expected ')', found ';'");
  check_error("function (A) -> (R) { R = A ? A; }", kParse,
              "1:32: expected ':' in the conditional 'c ? a : b', found ';'");
  check_error("function (A) -> (R) { R = A && A; }", kParse,
              "1:29: '&&' is not a Tile operator; use '&' on booleans");
  check_error("function (A) -> (R) { R = A || A; }", kParse,
              "1:29: '||' is not a Tile operator; use '|' on booleans");
  check_error("function (A) -> (R) { R = !A; }", kParse,
              "1:27: '!' is not a Tile operator; write 'X == 0' for a logical not");
  check_error("function (A) -> (R) { R = i + A; }", kParse,
              "1:27: index variable 'i' can only be used inside a contraction");
  check_error("function (A) -> (R) { R = A + 9223372036854775808; }", kParse,
              "1:31: integer '9223372036854775808' is out of range for 64 bits");
  check_error("function (A[N]) -> (R) { R[i : N] = +(A[i - -9223372036854775809]); }", kParse,
              "1:45: integer '-9223372036854775809' is out of range for 64 bits");
  check_error("function (A[N]) -> (R) { R[i : 9223372036854775808] = +(A[i]); }", kParse,
              "1:32: integer '9223372036854775808' is out of range for 64 bits");
  check_error("function (A) -> (R) { R = exp(A, A); }", kInvalid,
              "1:27: 'exp' takes 1 tensor argument, got 2");
  check_error("function (A) -> (R) { R = pow(A); }", kInvalid,
              "1:27: 'pow' takes 2 tensor arguments, got 1");
  check_error("function (A) -> (R) { R = exp(A A); }", kParse,
              "1:33: expected ',' or ')' in the arguments of 'exp', found 'A'");
}

TEST_CASE("deep nesting is an error, not a stack overflow") {
  // Not check_error: the texts are too long to be worth logging.
  auto deep_error = [](const std::string& text) {
    auto p = parse_tile(text);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.status().code() == kParse);
    return p.status().message();
  };
  const std::string head = "function (A[N]) -> (R) { R = ";
  CHECK(deep_error(head + std::string(100000, '(') + "A; }") ==
        "1:230: expression nested too deeply (more than 200 levels)");
  CHECK(deep_error(head + std::string(100000, '~') + "A; }") ==
        "1:229: expression nested too deeply (more than 200 levels)");
  CHECK(deep_error(head + std::string(100000, '-') + "A; }") ==
        "1:229: expression nested too deeply (more than 200 levels)");
  // Operands before each parenthesis: 1,500 levels (9 KB) overflowed the stack.
  for (int levels : {1500, 100000}) {
    std::string nested;
    for (int i = 0; i < levels; ++i) nested += "A + (";
    CHECK(deep_error(head + nested + "A" + std::string(levels, ')') + "; }") ==
          "1:1030: expression nested too deeply (more than 200 levels)");
  }
  // Index and size expressions nest as deep as their trees may be (1,000 levels, and one more
  // for the printer's `-(5)`), so that every tree the C API builds prints text that parses.
  CHECK(deep_error("function (A[N]) -> (R) { R[i : N] = +(A[" + std::string(5000, '(') +
                   "i]); }") == "1:1042: index expression nested too deeply (more than 1001 "
                                "levels)");
  CHECK(deep_error("function (A[N]) -> (R) { R[i : N] = +(A[" + std::string(5000, '-') +
                   "i]); }") == "1:1041: index expression nested too deeply (more than 1001 "
                                "levels)");
  CHECK(deep_error("function (A[N]) -> (R) { R[i : " + std::string(5000, '(') +
                   "N]) = +(A[i]); }") ==
        "1:1033: size expression nested too deeply (more than 1001 levels)");
  auto ok = parse_tile(head + std::string(150, '(') + "A" + std::string(150, ')') + "; }");
  CHECK(ok.has_value());
}

// Chains of + and * deepen an integer expression without nesting the parser; every later walk
// of the tree (and its destructor) recursed once per term, and 100,000 terms overflowed the
// stack. The tree stops at ir::kMaxIntExprDepth levels.
TEST_CASE("integer expressions deeper than the limit are refused as they are parsed") {
  auto chain = [](int terms, const std::string& op) {
    std::string text = "i";
    for (int t = 0; t < terms; ++t) text += " " + op + " 1";
    return text;
  };
  auto message = [](const std::string& text) {
    auto p = parse_tile(text);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.status().code() == StatusCode::kParseError);
    return p.status().message();
  };
  const std::string index_head = "function (X[N]) -> (O) { O[i : N] = +(X[";
  // The error points at the operator that made the tree one level too deep.
  for (int terms : {1000, 100000}) {
    CHECK(message(index_head + chain(terms, "+") + "]); }") ==
          "1:4039: index expression is nested too deeply (1001 levels; at most 1000)");
    CHECK(message(index_head + chain(terms, "*") + "]); }") ==
          "1:4039: index expression is nested too deeply (1001 levels; at most 1000)");
  }
  CHECK(message("function (X[N]) -> (O) { O[i : N" + chain(100000, "+").substr(1) +
                "] = +(X[i]); }") ==
        "1:4030: size expression is nested too deeply (1001 levels; at most 1000)");
  // 999 operators (1,000 levels) parse (deep_program_test.cc runs such a tree).
  auto ok = parse_tile(index_head + chain(998, "+") + " - 998]); }");
  INFO(ok.status().message());
  CHECK(ok.has_value());
}

TEST_CASE("cast, reshape and index argument errors") {
  check_error("function (A) -> (R) { R = as_float(A, 8); }", kInvalid,
              "1:39: as_float bit width must be 16, 32 or 64, got '8'");
  check_error("function (A) -> (R) { R = as_bfloat(A, 32); }", kInvalid,
              "1:40: as_bfloat bit width must be 16, got '32'");
  check_error("function (A) -> (R) { R = as_int(A, 12); }", kInvalid,
              "1:37: as_int bit width must be 8, 16, 32 or 64, got '12'");
  check_error("function (A[N]) -> (R) { R = as_uint(A, N); }", kInvalid,
              "1:41: as_uint bit width must be 8, 16, 32 or 64, got 'N'");
  check_error("function (A) -> (R) { R = as_float(A); }", kInvalid,
              "1:27: as_float needs one bit width: as_float(X, bits) with bits 16, 32 or 64");
  check_error("function (A) -> (R) { R = as_bool(A, 8); }", kInvalid,
              "1:27: 'as_bool' takes 1 tensor argument, got 2");
  check_error("function (A) -> (R) { R = index(A); }", kInvalid,
              "1:27: index needs one axis: index(X, axis)");
  check_error("function (A) -> (R) { R = index(A, -1); }", kInvalid,
              "1:36: index axis must be a non-negative integer literal, got '-1'");
  check_error("function (A[N]) -> (R) { R = reshape(A, Q); }", kNotFound,
              "1:41: unknown dimension 'Q'");
  check_error("function (A[N]) -> (R) { R = reshape(A, N, i); }", kInvalid,
              "1:44: index variable 'i' cannot appear in a dimension of reshape");
  check_error("function (A) -> (R) { R = reshape(A, 1.5); }", kParse,
              "1:38: 1.5 is not an integer: index and size expressions are integers");
}

TEST_CASE("contraction errors") {
  const std::string head = "function (A[M, K], B[K, N]) -> (C) {\n  ";
  auto c = [&](const std::string& stmt) { return head + stmt + "\n}"; };
  check_error(c("C[i, j : M, N] = =(A[i, k] * B[k, j]);"), kInvalid,
              "2:27: index k is not in the output of an assign contraction");
  check_error(c("C[i, j : M] = +(A[i, k] * B[k, j]);"), kInvalid,
              "2:3: 'C' has 2 output indices but 1 sizes");
  check_error(c("C[i, j : M, N] = +(A[i, k] * Q[k, j]);"), kNotFound, "2:32: unknown tensor 'Q'");
  check_error(c("C[i, j : M, Q] = +(A[i, k] * B[k, j]);"), kNotFound,
              "2:15: unknown dimension 'Q'");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j + Z]);"), kNotFound,
              "2:41: unknown dimension 'Z'");
  check_error(c("C[i, j : M, A] = +(A[i, k] * B[k, j]);"), kInvalid,
              "2:15: 'A' is a tensor, not a dimension");
  check_error(c("C[i, j : M, N] = +(M[i, k]);"), kNotFound,
              "2:22: 'M' is a dimension of input 'A', not a tensor");
  check_error(c("C[i, j : M, j] = +(A[i, k] * B[k, j]);"), kInvalid,
              "2:15: index variable 'j' cannot appear in an output size");
  check_error(c("C[i, j : M, N] = -(A[i, k] * B[k, j]);"), kParse,
              "2:20: expected an aggregation ('+', '*', '>', '<' or '=') for 'C', found '-'");
  check_error(c("C[i, j : M, N] = +A[i, k];"), kParse,
              "2:21: expected '(' after the aggregation, found 'A'");
  check_error(c("C[i, j : M, N] = +(A[i, k] - B[k, j]);"), kParse,
              "2:30: expected ')' or a combination ('*', '+', '==') after the input, found '-'");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j];"), kParse,
              "2:39: expected ')' to close the contraction, found ';'");
  check_error(c("C[i, j : M, N] = +(A * B[k, j]);"), kParse,
              "2:24: expected '[' after 'A': a contraction input needs its indices, found '*'");
  check_error(c("C[i, j : M, N] = +(A[i k] * B[k, j]);"), kParse,
              "2:26: expected ',' or ']' in the indices of 'A', found 'k'");
  check_error(c("C[i, j M, N] = +(A[i, k] * B[k, j]);"), kParse,
              "2:10: expected ',', ':' or ']' in the output of 'C', found 'M'");
  check_error(c("C[i, j : M, N] = +(A[i * k, k] * B[k, j]);"), kInvalid,
              "2:26: index expression 'i * k' is not affine: it multiplies index variables");
  check_error(c("C[i, j : M, N] = +(A[i / k, k] * B[k, j]);"), kInvalid,
              "2:26: index expression 'i / k' is not affine: it divides by an index variable");
  check_error(c("C[i, j : M, N] = +(A[max(i, 0), k] * B[k, j]);"), kInvalid,
              "2:24: index expression 'max(i, 0)' is not affine: max/min/floordiv of index "
              "variables");
  check_error(c("C[i, j : M, N] = +(A[i + bar(K, 2), k] * B[k, j]);"), kParse,
              "2:28: unknown index function 'bar' (allowed: max, min, floordiv)");
  check_error(c("C[i, j : foo(M), N] = +(A[i, k] * B[k, j]);"), kParse,
              "2:12: unknown size function 'foo' (allowed: max, min, floordiv)");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j]), i + j 3;"), kParse,
              "2:48: expected '<' in the constraint (poly < bound), found '3'");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j]), i < j;"), kInvalid,
              "2:46: index variable 'j' cannot appear in a constraint bound");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j]) default ;"), kParse,
              "2:49: expected a tensor or a number after 'default', found ';'");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j]) default Q;"), kNotFound,
              "2:49: unknown tensor 'Q'");
  check_error(c("C[i, j : M, N] = +(A[i, k] * B[k, j]) no_defract default 0;"), kParse,
              "2:52: expected ';' after statement, found 'default'");
  check_error(c("C[i, j] = +(X[i, j]);"), kNotFound, "2:15: unknown tensor 'X'");
  check_error("function (X) -> (M) { M[i] = >(X[i, j]); }", kInvalid,
              "1:23: cannot infer the size of output index 'i' of 'M'; write the sizes after "
              "':' as in M[i : N]");
}

}  // namespace
}  // namespace plaidml::parse
