// The printer: golden text, the parse -> print -> parse round trip, and the fingerprint.
#include "core/ir/printer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "core/ir/builder.h"
#include "core/parse/parse.h"

namespace plaidml::ir {
namespace {

std::shared_ptr<const Program> parse_ok(const std::string& text) {
  auto p = parse::parse_tile(text);
  INFO(text);
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

// print(parse(print(parse(text)))) == print(parse(text)); returns the printed text.
std::string round_trip(const std::string& text) {
  std::string first = print_tile(*parse_ok(text));
  auto again = parse_ok(first);
  CHECK(print_tile(*again) == first);
  CHECK(again->fingerprint() == parse_ok(text)->fingerprint());
  return first;
}

// A program built by calls, finished: it prints as `want`, and that text parses back to a
// program that prints the same. Returns the built program and the one parsed back.
std::pair<std::shared_ptr<const Program>, std::shared_ptr<const Program>> built_round_trip(
    ProgramBuilder& b, const std::string& want) {
  auto p = b.finish();
  REQUIRE(p.has_value());
  std::string text = print_tile(**p);
  CHECK(text == want);
  auto again = parse_ok(text);
  CHECK(print_tile(*again) == text);
  return {*p, again};
}

TEST_CASE("golden: matmul with bias and relu") {
  CHECK(round_trip("function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
                   "  C[i, j : M, N] = +(A[i, k] * B[k, j]);   # a contraction\n"
                   "  R = relu(C + Bias);\n"
                   "}") ==
        "function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
        "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
        "  _T1 = C + Bias;\n"
        "  R = relu(_T1);\n"
        "}\n");
}

TEST_CASE("golden: the docs/tile.md examples") {
  CHECK(round_trip("function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1)/2] * K[j]); }") ==
        "function (I[N], K[M]) -> (O) {\n"
        "  O[i : 5] = +(I[(i - j + 1) / 2] * K[j]);\n"
        "}\n");
  CHECK(round_trip("function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }") ==
        "function (X[N]) -> (S) {\n"
        "  S[i : N] = +(X[k]), i - k < N;\n"
        "}\n");
  CHECK(round_trip("function (I[N, X, Y, C]) -> (O) {\n"
                   "  O[n, x, y, c : N, (X+1)/2, (Y+1)/2, C] = >(I[n, 2*x+i, 2*y+j, c]), "
                   "i < 2, j < 2;\n}") ==
        "function (I[N, X, Y, C]) -> (O) {\n"
        "  O[n, x, y, c : N, (X + 1) / 2, (Y + 1) / 2, C] = >(I[n, 2 * x + i, 2 * y + j, c]), "
        "i < 2, j < 2;\n"
        "}\n");
  CHECK(round_trip("function (X[N, J], Idx[J]) -> (O) {\n"
                   "  M[i] = >(X[i, j]);  O[i] = +(X[i, j] == M[i] ? Idx[j]);\n}") ==
        "function (X[N, J], Idx[J]) -> (O) {\n"
        "  M[i : N] = >(X[i, j]);\n"
        "  O[i : N] = +(X[i, j] == M[i] ? Idx[j]);\n"
        "}\n");
}

TEST_CASE("golden: literals, dims, aliases, prefix operators") {
  CHECK(round_trip("function (A[N], B: bf16[], X) -> (R, S, T, U) {\n"
                   "  R = -A * 2.0 + -1 - 1e20 + N + ~A;\n"
                   "  S = R;  T = 3;  U = -(1.5) + neg(2);\n}") ==
        "function (A[N], B: bf16[], X) -> (R, S, T, U) {\n"
        "  _T0 = -A;\n"
        "  _T2 = _T0 * 2.0;\n"
        "  _T4 = _T2 + -1;\n"
        "  _T6 = _T4 - 1e+20;\n"
        "  _T8 = _T6 + N;\n"
        "  _T9 = ~A;\n"
        "  R = _T8 + _T9;\n"
        "  T = 3;\n"
        "  _T13 = neg(1.5);\n"  // parenthesised: a Neg node, not a negative literal
        "  _T15 = neg(2);\n"
        "  U = _T13 + _T15;\n"
        "  S = R;\n"
        "}\n");
}

TEST_CASE("round trip: many programs") {
  const char* programs[] = {
      // valid and padded ("same") convolutions with strides
      "function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, X - KX + 1, Y - KY + 1, CO] = +(I[n, x + i, y + j, ci] * "
      "K[i, j, ci, co]);\n}",
      "function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, (X + 1) / 2, (Y + 1) / 2, CO] = "
      "+(I[n, 2 * x + i - (KX - 1) / 2, 2 * y + j - 1, ci] * K[i, j, ci, co]);\n}",
      // cumulative sum, products, min/max sizes, negative coefficients
      "function (X[N]) -> (P, Q) {\n"
      "  P[i : max(0, N - 2)] = *(X[i + 2]);\n"
      "  Q[i : min(N, 4) * 2 - -1] = <(X[-i + N - 1]), i - 1 < N, -(-i) < 2;\n}",
      // every aggregation and combination, default and no_defract
      "function (A[N, N], B[N], D[N]) -> (O1, O2, O3, O4, O5) {\n"
      "  O1[i : N] = +(A[i, j] + B[j]) default D;\n"
      "  O2[i : N] = *(A[i, j] * B[j]) default 1.5 no_defract;\n"
      "  O3[i : N] = >(A[i, j] == B[j]) default -2;\n"
      "  O4[i : N] = <(A[j, i]);\n"
      "  O5[i, j : N, N] = =(A[i, j] == B[j] ? A[j, i]) no_defract;\n}",
      // scalar in and out
      "function (S[], X) -> (R, T) { R[] = +(X[i, j]); T = S * R; }",
      // every function and operator
      "function (A, B, C) -> (R) {\n"
      "  E = exp(A) + log(A) + sqrt(A) + pow(A, B) + tanh(A) + sin(A) + cos(A) + tan(A);\n"
      "  F = sinh(A) + cosh(A) + asin(A) + acos(A) + atan(A) + asinh(A) + acosh(A) + atanh(A);\n"
      "  G = erf(A) + floor(A) + ceil(A) + round(A) + abs(A) + sign(A) + neg(A) + recip(A);\n"
      "  H = max(A, B) + min(A, B) + select(C, A, B) + relu(A) + sigmoid(A) + (C ? A : B);\n"
      "  I = A % B - A / B + (A == B) + (A != B) + (A < B) + (A > B) + (A <= B) + (A >= B);\n"
      "  J = (A & B) | (A ^ B) | (A << B) | (A >> B) | ~A;\n"
      "  R = E + F + G + H + I + J;\n}",
      // casts, structure, prng
      "function (X[N, M], S, V, Ix) -> (A, B, C, D, E, F, G, H, K, L, P, Q) {\n"
      "  A = as_float(X, 16); B = as_bfloat(X, 16); C = as_int(X, 32); D = as_uint(X, 8);\n"
      "  E = as_bool(X); F = reshape(X, N * M); G = reshape(X, M, N / 2 + 1); H = index(X, 1);\n"
      "  K = shape(X); L = gather(V, Ix); P = scatter(X, Ix, V);\n"
      "  Q = prng_value(prng_step(S, N, (M + 1) / 2)) + prng_state(prng_step(S, 4));\n}",
      // user names that look generated
      "function (_T1[N]) -> (_T0, R) { _T0 = _T1 + 1; R = _T0 * 2; }",
  };
  for (const char* text : programs) {
    CAPTURE(text);
    round_trip(text);
  }
}

TEST_CASE("built by calls: infinities, literal contraction inputs, unnamed dims, temps") {
  ProgramBuilder b;
  ValueId x = *b.add_input("X", std::vector<std::string>{"", "N"}, DType::I32, SourceLoc{});
  ValueId inf = b.add_float_literal(std::numeric_limits<double>::infinity(), SourceLoc{});
  ValueId ninf = b.add_float_literal(-std::numeric_limits<double>::infinity(), SourceLoc{});
  ValueId two = b.add_int_literal(2, SourceLoc{});
  ValueId m = *b.add_elementwise(OpKind::Max, {x, inf}, {}, SourceLoc{});
  ValueId n = *b.add_elementwise(OpKind::Min, {m, ninf}, {}, SourceLoc{});
  Contraction c;
  c.agg = AggOp::kSum;
  c.comb = CombOp::kMul;
  c.out_indices = {IntExpr::index("i")};
  c.out_sizes = {IntExpr::dim("N")};
  c.inputs = {{n, {IntExpr::literal(0), IntExpr::index("i")}, {}}, {two, {}, {}}};
  c.default_value = *b.add_dim_literal(IntExpr::dim("N"), SourceLoc{});
  ValueId o = *b.add_contraction(c, SourceLoc{});
  REQUIRE(b.assign("O", o, SourceLoc{}).is_ok());
  REQUIRE(b.add_output("O", SourceLoc{}).is_ok());
  auto [p, again] = built_round_trip(b,
                                     "function (X: i32[_, N]) -> (O) {\n"
                                     "  _T2 = 2;\n"
                                     "  _T3 = max(X, 1e999);\n"
                                     "  _T4 = min(_T3, -1e999);\n"
                                     "  _T5 = N;\n"
                                     "  O[i : N] = +(_T4[0, i] * _T2[]) default _T5;\n"
                                     "}\n");
  CHECK(again->fingerprint() == p->fingerprint());
  auto mx = std::find_if(again->nodes.begin(), again->nodes.end(),
                         [](const Node& node) { return node.name == "_T3"; });
  REQUIRE(mx != again->nodes.end());
  REQUIRE(mx->operands.size() == 2);
  CHECK(std::isinf(again->nodes[mx->operands[1]].literal_float));
  CHECK(again->nodes[mx->operands[1]].literal_float > 0);
}

// Found by fuzz_builder_calls (fuzz/regressions/builder_calls/nan_literal): a NaN float literal
// printed as `nan`, which the parser read as an index variable, so the text did not parse back.
TEST_CASE("built by calls: a NaN literal prints as nan, which parses back to NaN") {
  ProgramBuilder b;
  ValueId x = *b.add_input("X", std::vector<std::string>{"N"}, DType::F32, SourceLoc{});
  ValueId nan = b.add_float_literal(-std::numeric_limits<double>::quiet_NaN(), SourceLoc{});
  ValueId sum = *b.add_elementwise(OpKind::Add, {x, nan}, {}, SourceLoc{});
  Contraction c;
  c.agg = AggOp::kMax;
  c.out_indices = {IntExpr::index("i")};
  c.out_sizes = {IntExpr::dim("N")};
  c.inputs = {{x, {IntExpr::index("i")}, {}}};
  c.default_value = b.add_float_literal(std::numeric_limits<double>::quiet_NaN(), SourceLoc{});
  ValueId m = *b.add_contraction(c, SourceLoc{});
  REQUIRE(b.assign("S", sum, SourceLoc{}).is_ok());
  REQUIRE(b.assign("M", m, SourceLoc{}).is_ok());
  REQUIRE(b.add_output("S", SourceLoc{}).is_ok());
  REQUIRE(b.add_output("M", SourceLoc{}).is_ok());
  const std::string want =
      "function (X: f32[N]) -> (S, M) {\n"
      "  S = X + nan;\n"
      "  M[i : N] = >(X[i]) default nan;\n"
      "}\n";
  std::shared_ptr<const Program> again = built_round_trip(b, want).second;
  const Node& add = again->nodes[again->outputs[0].second];
  REQUIRE(add.operands.size() == 2);
  CHECK(std::isnan(again->nodes[add.operands[1]].literal_float));
  const auto& def = again->nodes[again->outputs[1].second].contraction.default_value;
  REQUIRE(def.has_value());
  CHECK(std::isnan(again->nodes[*def].literal_float));
}

TEST_CASE("nan: the literal where a value stands, a quoted `nan` is a name, nan() a function") {
  auto p = parse_ok("function (`nan`[N]) -> (R) { R = `nan` * 2; }");
  CHECK(p->nodes[p->inputs[0]].name == "nan");
  auto call = parse::parse_tile("function (X[N]) -> (R) { R = nan(X); }");
  REQUIRE_FALSE(call.has_value());
  CHECK(call.status().message() == "1:30: unknown function 'nan'");
  auto index = parse::parse_tile("function (X[N]) -> (R) { R = X + nax; }");
  REQUIRE_FALSE(index.has_value());
  CHECK(index.status().message() ==
        "1:34: index variable 'nax' can only be used inside a contraction");
}

// Found by fuzz_builder_calls (fuzz/regressions/builder_calls/int64_min_index): a size or
// index literal of INT64_MIN printed as -9223372036854775808, which the parser read as a minus
// before 9223372036854775808, out of range: the text did not parse back.
TEST_CASE("index and size literals down to INT64_MIN print and parse back as literals") {
  std::string text = round_trip(
      "function (A[N]) -> (O) { O[i : 2 - -3] = +(A[i + -9223372036854775808 * 0 - -2]); }");
  CHECK(text ==
        "function (A[N]) -> (O) {\n"
        "  O[i : 2 - -3] = +(A[i + -9223372036854775808 * 0 - -2]);\n"
        "}\n");
  auto p = parse_ok(text);
  const Contraction& c = p->nodes[p->outputs[0].second].contraction;
  const IntExpr& size = *c.out_sizes[0];
  REQUIRE(size.op == IntOp::kSub);
  CHECK(size.args[1]->op == IntOp::kLiteral);
  CHECK(size.args[1]->value == -3);
  const IntExpr& access = *c.inputs[0].indices[0];  // (i + MIN * 0) - -2
  REQUIRE(access.op == IntOp::kSub);
  const IntExpr& product = *access.args[0]->args[1];
  REQUIRE(product.op == IntOp::kMul);
  CHECK(product.args[0]->op == IntOp::kLiteral);
  CHECK(product.args[0]->value == std::numeric_limits<int64_t>::min());
}

TEST_CASE("print_int_expr keeps the tree: parentheses only where needed") {
  auto i = IntExpr::index("i");
  auto j = IntExpr::index("j");
  auto n = IntExpr::dim("N");
  auto sub = [](IntExprPtr a, IntExprPtr b) { return IntExpr::binary(IntOp::kSub, a, b); };
  auto mul = [](IntExprPtr a, IntExprPtr b) { return IntExpr::binary(IntOp::kMul, a, b); };
  auto div = [](IntExprPtr a, IntExprPtr b) { return IntExpr::binary(IntOp::kDiv, a, b); };
  CHECK(print_int_expr(*sub(i, sub(j, n))) == "i - (j - N)");
  CHECK(print_int_expr(*sub(sub(i, j), n)) == "i - j - N");
  CHECK(print_int_expr(*div(i, mul(j, n))) == "i / (j * N)");
  CHECK(print_int_expr(*mul(IntExpr::neg(i), IntExpr::literal(-3))) == "-i * -3");
  CHECK(print_int_expr(*IntExpr::neg(IntExpr::neg(i))) == "- -i");
  CHECK(print_int_expr(*IntExpr::neg(IntExpr::literal(-2))) == "-(-2)");
  CHECK(print_int_expr(*IntExpr::neg(IntExpr::literal(0))) == "-(0)");  // `-0` is one literal
  CHECK(print_int_expr(*IntExpr::neg(IntExpr::neg(IntExpr::literal(5)))) == "- -(5)");
  CHECK(print_int_expr(*IntExpr::binary(IntOp::kMin, n, mul(i, IntExpr::literal(2)))) ==
        "min(N, i * 2)");
}

// Found by fuzz_tile_text (fuzz/regressions/tile_text): a negated 0 printed as `-0`, which
// parses as the literal 0; a chain of negations printed as `-(-(...))`, twice as deep as the
// parser counts `- - ...`, so a chain that parsed could print beyond its nesting limit.
TEST_CASE("negated literals and chains of negations print as they parse") {
  std::string text =
      round_trip("function (A[N]) -> (O) { O[i : N] = +(A[i - -(0) + -(-(-(3)))]); }");
  CHECK(text ==
        "function (A[N]) -> (O) {\n"
        "  O[i : N] = +(A[i - -(0) + - - -(3)]);\n"
        "}\n");
  // 95 negations written `-(-(...))`: 190 levels of the parser's 200, printed as 95.
  std::string chain;
  for (int k = 0; k < 95; ++k) chain += "-(";
  chain += "i" + std::string(95, ')');
  text = round_trip("function (A[N]) -> (O) { O[i : N] = +(A[i - " + chain + "]); }");
  std::string printed_chain;
  for (int k = 0; k < 94; ++k) printed_chain += "- ";
  CHECK(text.find("A[i - " + printed_chain + "-i]") != std::string::npos);
}

// Found by fuzz_builder_calls (fuzz/regressions/builder_calls/floordiv_value_round_trip,
// division_chain_value): a dim expression used as a value printed bare, which read back as
// elementwise code (or, for floordiv, not at all).
TEST_CASE("dim expressions used as values print in parentheses and read back as one value") {
  ProgramBuilder b;
  ValueId x = *b.add_input("X", std::vector<std::string>{"N"}, std::nullopt, SourceLoc{});
  auto half = IntExpr::binary(IntOp::kFloorDiv, IntExpr::dim("N"), IntExpr::literal(2));
  auto chain = IntExpr::binary(
      IntOp::kDiv, IntExpr::binary(IntOp::kDiv, IntExpr::literal(100), IntExpr::dim("N")),
      IntExpr::literal(3));
  ValueId a = *b.add_dim_literal(half, SourceLoc{});
  ValueId c = *b.add_dim_literal(chain, SourceLoc{});
  ValueId d = *b.add_dim_literal(IntExpr::neg(IntExpr::dim("N")), SourceLoc{});
  ValueId sum = *b.add_elementwise(OpKind::Add, {x, d}, {}, SourceLoc{});
  REQUIRE(b.assign("A", a, SourceLoc{}).is_ok());
  REQUIRE(b.assign("C", c, SourceLoc{}).is_ok());
  REQUIRE(b.assign("S", sum, SourceLoc{}).is_ok());
  for (const char* out : {"A", "C", "S"}) REQUIRE(b.add_output(out, SourceLoc{}).is_ok());
  auto [p, again] = built_round_trip(b,
                                     "function (X[N]) -> (A, C, S) {\n"
                                     "  A = (floordiv(N, 2));\n"
                                     "  C = (100 / N / 3);\n"
                                     "  S = X + (-N);\n"
                                     "}\n");
  CHECK(again->fingerprint() == p->fingerprint());
}

TEST_CASE("fingerprint: stable, and different for different programs") {
  const std::string mm =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  auto a = parse_ok(mm);
  auto b = parse_ok(
      "# the same program, spaced differently\n"
      "function (A[M,K], B[K,N]) -> (C) {\n C[i,j:M,N]=+(A[i,k]*B[k,j]);\n}");
  CHECK(a->fingerprint() == b->fingerprint());
  CHECK(a->fingerprint() == parse_ok(mm)->fingerprint());
  // FNV-1a of the printed text: pinned, so a printer change that alters cache keys is seen.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : print_tile(*a)) h = (h ^ ch) * 1099511628211ull;
  CHECK(a->fingerprint() == h);
  const char* others[] = {
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = >(A[i, k] * B[k, j]); }",
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] + B[k, j]); }",
      "function (A[M, K], B[K, N]) -> (C) { C[j, i : N, M] = +(A[i, k] * B[k, j]); }",
      "function (A: f16[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]), k < 2; }",
      "function (A[M, K], B[K, L]) -> (C) { C[i, j : M, L] = +(A[i, k] * B[k, j]); }",
  };
  for (const char* o : others) {
    CAPTURE(o);
    CHECK(parse_ok(o)->fingerprint() != a->fingerprint());
  }
}

}  // namespace
}  // namespace plaidml::ir
