// Every grammar rule of docs/tile.md sections 1-3, checked on the Program the parser builds.
#include <doctest/doctest.h>

#include <climits>
#include <limits>
#include <set>

#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

using ir::IntOp;
using ir::NodeKind;
using ir::OpKind;

std::shared_ptr<const ir::Program> ok(const std::string& text) {
  auto p = parse_tile(text);
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

const ir::Node& named(const ir::Program& p, const std::string& name) {
  for (const auto& n : p.nodes) {
    if (n.name == name) return n;
  }
  FAIL("no node named " << name);
  return p.nodes[0];
}

const ir::Node& output(const ir::Program& p, size_t i = 0) {
  return p.nodes[p.outputs.at(i).second];
}

std::string expr(const ir::IntExprPtr& e) { return ir::print_int_expr(*e); }

TEST_CASE("inputs: unknown rank, scalar, named dims, unnamed dims and dtypes") {
  auto p = ok("function (X, S[], A[M, K], B: f16[_, K], C: i8) -> (R) { R = A; }");
  REQUIRE(p->inputs.size() == 5);
  CHECK_FALSE(p->nodes[p->inputs[0]].input_dims.has_value());
  CHECK(p->nodes[p->inputs[1]].input_dims == std::vector<std::string>{});
  CHECK(p->nodes[p->inputs[2]].input_dims == std::vector<std::string>{"M", "K"});
  CHECK(p->nodes[p->inputs[3]].input_dims == std::vector<std::string>{"", "K"});
  CHECK(p->nodes[p->inputs[3]].input_dtype == DType::F16);
  CHECK(p->nodes[p->inputs[4]].input_dtype == DType::I8);
  CHECK_FALSE(p->nodes[p->inputs[4]].input_dims.has_value());
  CHECK(p->nodes[p->inputs[0]].loc.to_string() == "1:11");
  CHECK(p->find_input("B") == p->inputs[3]);
  CHECK_FALSE(p->find_input("Q").has_value());
}

TEST_CASE("outputs: several, in declaration order, aliasing allowed") {
  auto p = ok("function (A[N]) -> (S, R, T) { R = exp(A); S = R; T = A; }");
  REQUIRE(p->outputs.size() == 3);
  CHECK(p->outputs[0].first == "S");
  CHECK(p->outputs[0].second == p->outputs[1].second);
  CHECK(p->outputs[2].second == p->inputs[0]);
  CHECK(p->find_output("T") == 2u);
  CHECK(output(*p, 1).op == OpKind::Exp);
  CHECK(output(*p, 1).name == "R");
}

TEST_CASE("matmul contraction") {
  auto p = ok("function (A[M, K], B[K, N]) -> (C) {\n  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n}");
  const auto& n = output(*p);
  REQUIRE(n.kind == NodeKind::kContraction);
  const auto& c = n.contraction;
  CHECK(c.agg == ir::AggOp::kSum);
  CHECK(c.comb == ir::CombOp::kMul);
  REQUIRE(c.out_indices.size() == 2);
  CHECK(c.out_indices[0]->op == IntOp::kIndex);
  CHECK(c.out_sizes[1]->op == IntOp::kDim);
  CHECK(c.out_sizes[1]->name == "N");
  REQUIRE(c.inputs.size() == 2);
  CHECK(c.inputs[0].tensor == p->inputs[0]);
  CHECK(expr(c.inputs[1].indices[0]) == "k");
  CHECK(c.inputs[1].loc.to_string() == "2:32");
  CHECK(n.loc.to_string() == "2:3");
  CHECK(n.name == "C");
}

TEST_CASE("every aggregation and combination") {
  struct Case {
    const char* stmt;
    ir::AggOp agg;
    ir::CombOp comb;
    size_t inputs;
  };
  const Case cases[] = {
      {"O[i : N] = +(A[i, j]);", ir::AggOp::kSum, ir::CombOp::kNone, 1},
      {"O[i : N] = *(A[i, j] + B[j]);", ir::AggOp::kProd, ir::CombOp::kAdd, 2},
      {"O[i : N] = >(A[i, j] * B[j]);", ir::AggOp::kMax, ir::CombOp::kMul, 2},
      {"O[i : N] = <(A[i, j] == B[j]);", ir::AggOp::kMin, ir::CombOp::kEq, 2},
      {"O[i, j : N, N] = =(A[i, j] == B[j] ? A[j, i]);", ir::AggOp::kAssign, ir::CombOp::kCond, 3},
  };
  for (const auto& k : cases) {
    CAPTURE(k.stmt);
    auto p = ok(std::string("function (A[N, N], B[N]) -> (O) { ") + k.stmt + " }");
    const auto& c = output(*p).contraction;
    CHECK(c.agg == k.agg);
    CHECK(c.comb == k.comb);
    CHECK(c.inputs.size() == k.inputs);
  }
}

TEST_CASE("scalar output, constraints, default and no_defract") {
  auto p =
      ok("function (X[N], D[N]) -> (S, T, U) {\n"
         "  S[] = +(X[i]);\n"
         "  T[i : N] = +(X[k]), i - k < N, k < 2 * N + 1 default D no_defract;\n"
         "  U[i : N] = =(X[i]) default -1.5;\n"
         "}");
  CHECK(output(*p, 0).contraction.out_indices.empty());
  CHECK(output(*p, 0).contraction.out_sizes.empty());
  const auto& t = output(*p, 1).contraction;
  REQUIRE(t.constraints.size() == 2);
  CHECK(expr(t.constraints[0].poly) == "i - k");
  CHECK(expr(t.constraints[0].bound) == "N");
  CHECK(expr(t.constraints[1].bound) == "2 * N + 1");
  CHECK(t.constraints[1].loc.to_string() == "3:34");
  CHECK(t.default_value == p->inputs[1]);
  CHECK(t.no_defract);
  const auto& u = output(*p, 2).contraction;
  REQUIRE(u.default_value.has_value());
  const auto& d = p->nodes[*u.default_value];
  CHECK(d.kind == NodeKind::kLiteral);
  CHECK(d.literal_is_float);
  CHECK(d.literal_float == -1.5);
  CHECK_FALSE(u.no_defract);
}

TEST_CASE("index polynomials: coefficients, dims, rational division, parentheses") {
  auto p =
      ok("function (I[X], K[KX]) -> (O) {\n"
         "  O[i : (X + 1) / 2] = +(I[2 * i - j + KX] * K[(i - j + 1) / 2]);\n"
         "}");
  const auto& c = output(*p).contraction;
  CHECK(expr(c.inputs[0].indices[0]) == "2 * i - j + KX");
  const auto& r = *c.inputs[1].indices[0];
  CHECK(r.op == IntOp::kDiv);
  CHECK(r.args[1]->value == 2);
  CHECK(expr(c.inputs[1].indices[0]) == "(i - j + 1) / 2");
  CHECK(expr(c.out_sizes[0]) == "(X + 1) / 2");
  CHECK(r.loc.to_string() == "2:60");
}

TEST_CASE("output sizes: + - * / max min and parentheses, C precedence") {
  auto p =
      ok("function (I[N]) -> (O) {\n"
         "  O[i, j, k : max(0, N - 2), min(N, 3) * 2, N - (N - 1) / 2 + -1] = +(I[i + j + k]);\n"
         "}");
  const auto& c = output(*p).contraction;
  CHECK(c.out_sizes[0]->op == IntOp::kMax);
  CHECK(expr(c.out_sizes[0]) == "max(0, N - 2)");
  CHECK(c.out_sizes[1]->op == IntOp::kMul);
  CHECK(c.out_sizes[1]->args[0]->op == IntOp::kMin);
  CHECK(c.out_sizes[2]->op == IntOp::kAdd);
  // `-1` is one literal, as in elementwise code (docs/tile.md 1.2).
  CHECK(c.out_sizes[2]->args[1]->op == IntOp::kLiteral);
  CHECK(c.out_sizes[2]->args[1]->value == -1);
  CHECK(c.out_sizes[2]->args[0]->args[1]->op == IntOp::kDiv);
}

TEST_CASE("integer expressions: -3 is one literal, down to INT64_MIN, while -N and -(3) negate") {
  auto p = ok("function (I[N]) -> (O) {\n"
              "  O[i : N - -3 + -N + -(3)] = +(I[i - -9223372036854775808 - 1]);\n"
              "}");
  const auto& c = output(*p).contraction;
  const ir::IntExpr& size = *c.out_sizes[0];  // ((N - -3) + -N) + -(3)
  REQUIRE(size.op == IntOp::kAdd);
  CHECK(size.args[1]->op == IntOp::kNeg);
  CHECK(size.args[1]->args[0]->value == 3);
  CHECK(size.args[1]->loc.to_string() == "2:23");
  CHECK(size.args[0]->args[1]->op == IntOp::kNeg);
  CHECK(size.args[0]->args[1]->args[0]->op == IntOp::kDim);
  const ir::IntExpr& three = *size.args[0]->args[0]->args[1];
  CHECK(three.op == IntOp::kLiteral);
  CHECK(three.value == -3);
  CHECK(three.loc.to_string() == "2:13");  // where the literal starts: its minus
  const ir::IntExpr& min = *c.inputs[0].indices[0]->args[0]->args[1];
  CHECK(min.op == IntOp::kLiteral);
  CHECK(min.value == std::numeric_limits<int64_t>::min());
}

TEST_CASE("output sizes may be left out when an input names them") {
  auto p =
      ok("function (X[N, M], Idx[M]) -> (O) {\n"
         "  Mx[i] = >(X[i, j]);\n"
         "  O[i] = +(X[i, j] == Mx[i] ? Idx[j]);\n"
         "}");
  const auto& mx = named(*p, "Mx").contraction;
  REQUIRE(mx.out_sizes.size() == 1);
  CHECK(expr(mx.out_sizes[0]) == "N");
  CHECK(expr(output(*p).contraction.out_sizes[0]) == "N");
}

TEST_CASE("elementwise precedence follows C, ?: lowest") {
  auto p = ok("function (A, B, C) -> (R) { R = A + B * C; }");
  const auto& r = output(*p);
  CHECK(r.op == OpKind::Add);
  CHECK(p->nodes[r.operands[1]].op == OpKind::Mul);

  p = ok("function (A, B, C) -> (R) { R = A | B ^ C & A == B < C << A + B * -C; }");
  std::vector<OpKind> chain;
  const ir::Node* n = &output(*p);
  while (n->kind == NodeKind::kElementwise) {
    chain.push_back(n->op);
    n = &p->nodes[n->operands.back()];
  }
  CHECK(chain == std::vector<OpKind>{OpKind::BitOr, OpKind::BitXor, OpKind::BitAnd, OpKind::Eq,
                                     OpKind::Lt, OpKind::Shl, OpKind::Add, OpKind::Mul,
                                     OpKind::Neg});

  p = ok("function (A, B, C) -> (R) { R = A < B ? A - B - C : C > A ? B : ~C; }");
  const auto& sel = output(*p);
  CHECK(sel.op == OpKind::Select);
  CHECK(p->nodes[sel.operands[0]].op == OpKind::Lt);
  const auto& sub = p->nodes[sel.operands[1]];
  CHECK(sub.op == OpKind::Sub);
  CHECK(p->nodes[sub.operands[0]].op == OpKind::Sub);  // left associative
  CHECK(p->nodes[sel.operands[2]].op == OpKind::Select);

  p = ok("function (A, B) -> (R) { R = (A + B) * (A % B) / (A != B) - (A >= B) + (A <= B >> A); }");
  CHECK(output(*p).op == OpKind::Add);
}

TEST_CASE("literals: integers, floats, negative, huge") {
  auto p = ok("function (A) -> (R) { R = A * 1 + 1.5 + 1e-3 + .5 + 2. + -7 + 1E+2 + -0.25; }");
  std::vector<std::pair<bool, double>> seen;
  for (const auto& n : p->nodes) {
    if (n.kind != NodeKind::kLiteral) continue;
    seen.push_back({n.literal_is_float,
                    n.literal_is_float ? n.literal_float : static_cast<double>(n.literal_int)});
  }
  std::vector<std::pair<bool, double>> want = {{false, 1},  {true, 1.5},  {true, 1e-3},
                                               {true, 0.5}, {true, 2.0},  {false, -7},
                                               {true, 100}, {true, -0.25}};
  CHECK(seen == want);
  p = ok("function (A) -> (R) { R = A + -9223372036854775808 + 9223372036854775807; }");
  CHECK(p->nodes[1].literal_int == INT64_MIN);
  CHECK(p->nodes[3].literal_int == INT64_MAX);
}

TEST_CASE("a dim used as a value becomes a dim literal") {
  auto p = ok("function (X[N, C]) -> (R) { R = X / N + C; }");
  const auto& div = p->nodes[output(*p).operands[0]];
  const auto& lit = p->nodes[div.operands[1]];
  CHECK(lit.kind == NodeKind::kLiteral);
  REQUIRE(lit.int_args.size() == 1);
  CHECK(lit.int_args[0]->op == IntOp::kDim);
  CHECK(lit.int_args[0]->name == "N");
}

TEST_CASE("every function of docs/tile.md parses to its op") {
  const char* unary[] = {"exp",     "log",   "sqrt",       "tanh",       "sin",    "cos",
                         "tan",     "sinh",  "cosh",       "asin",       "acos",   "atan",
                         "asinh",   "acosh", "atanh",      "erf",        "floor",  "ceil",
                         "round",   "abs",   "sign",       "neg",        "recip",  "relu",
                         "sigmoid", "shape", "prng_state", "prng_value", "as_bool"};
  for (const char* f : unary) {
    CAPTURE(f);
    auto p = ok(std::string("function (A) -> (R) { R = ") + f + "(A); }");
    CHECK(ir::op_name(output(*p).op) == f);
    CHECK(output(*p).operands == std::vector<ir::ValueId>{0});
  }
  for (const char* f : {"pow", "max", "min", "gather"}) {
    CAPTURE(f);
    auto p = ok(std::string("function (A, B) -> (R) { R = ") + f + "(A, B); }");
    CHECK(ir::op_name(output(*p).op) == f);
  }
  auto p = ok("function (C, A, B) -> (R, S) { R = select(C, A, B); S = scatter(C, A, B); }");
  CHECK(output(*p, 0).op == OpKind::Select);
  CHECK(output(*p, 1).op == OpKind::Scatter);
  CHECK(output(*p, 1).operands.size() == 3);
}

TEST_CASE("casts, reshape, index and prng_step take integer arguments") {
  auto p =
      ok("function (X[N, M], S) -> (A, B, C, D, E, F, G) {\n"
         "  A = as_float(X, 16); B = as_bfloat(X, 16); C = as_int(X, 8); D = as_uint(X, 64);\n"
         "  E = reshape(X, N * M, 1); F = index(X, 1); G = prng_step(S, N, (M + 1) / 2);\n"
         "}");
  CHECK(expr(output(*p, 0).int_args[0]) == "16");
  CHECK(output(*p, 1).op == OpKind::AsBFloat);
  CHECK(output(*p, 2).int_args[0]->value == 8);
  CHECK(output(*p, 3).op == OpKind::AsUInt);
  const auto& e = output(*p, 4);
  CHECK(e.op == OpKind::Reshape);
  REQUIRE(e.int_args.size() == 2);
  CHECK(expr(e.int_args[0]) == "N * M");
  CHECK(e.operands.size() == 1);
  CHECK(output(*p, 5).int_args[0]->value == 1);
  CHECK(expr(output(*p, 6).int_args[1]) == "(M + 1) / 2");
}

TEST_CASE("comments, whitespace and generated temporaries") {
  auto p =
      ok("# leading comment\n"
         "function (A) -> (R) {  // trailing comment\n"
         "  R = exp(A + 1) # inside a statement\n"
         "      * 2;\n"
         "}\n// end\n");
  const auto& r = output(*p);
  CHECK(r.op == OpKind::Mul);
  CHECK(ir::is_generated_name(p->nodes[r.operands[0]].name));
  CHECK(p->nodes[r.operands[0]].loc.to_string() == "3:7");
  CHECK(r.loc.to_string() == "4:7");
}

TEST_CASE("keywords are ordinary names elsewhere, user names like _T0 do not collide") {
  auto p =
      ok("function (A[N]) -> (R, _T0) {\n"
         "  _T0 = A + 1;\n"
         "  R[default : N] = +(_T0[default]);\n"
         "}");
  CHECK(output(*p, 1).name == "_T0");
  std::set<std::string> names;
  for (const auto& n : p->nodes) CHECK(names.insert(n.name).second);
}

}  // namespace
}  // namespace plaidml::parse
