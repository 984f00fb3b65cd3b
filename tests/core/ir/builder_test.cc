// ProgramBuilder driven directly, as the C API drives it: results and every structural error.
#include "core/ir/builder.h"

#include <doctest/doctest.h>

#include "core/ir/printer.h"

namespace plaidml::ir {
namespace {

const SourceLoc kCall{0, 0, "plaidml_program_add"};
SourceLoc at(int line, int col) { return SourceLoc{line, col, ""}; }

void check_error(const Status& s, StatusCode code, const std::string& message) {
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message() == message);
  CHECK(s.code() == code);
}

template <typename T>
void check_error(const Expected<T>& e, StatusCode code, const std::string& message) {
  REQUIRE_FALSE(e.has_value());
  check_error(e.status(), code, message);
}

TEST_CASE("SourceLoc and IntExpr factories") {
  CHECK(at(3, 14).to_string() == "3:14");
  CHECK(kCall.to_string() == "plaidml_program_add");
  CHECK(SourceLoc{}.to_string().empty());
  auto e = IntExpr::binary(IntOp::kSub,
                           IntExpr::binary(IntOp::kMul, IntExpr::literal(2), IntExpr::index("x")),
                           IntExpr::neg(IntExpr::dim("N")), at(1, 2));
  CHECK(e->op == IntOp::kSub);
  CHECK(e->loc.to_string() == "1:2");
  CHECK(e->args[0]->args[1]->name == "x");
  CHECK(e->args[1]->op == IntOp::kNeg);
  CHECK(print_int_expr(*e) == "2 * x - -N");
}

TEST_CASE("a matmul built by calls, names, ids and outputs") {
  ProgramBuilder b("mm");
  auto a = b.add_input("A", std::vector<std::string>{"M", "K"}, DType::F32, kCall);
  auto bb = b.add_input("B", std::vector<std::string>{"K", "N"}, std::nullopt, kCall);
  REQUIRE(a.has_value());
  REQUIRE(bb.has_value());
  CHECK(b.is_dim("K"));
  CHECK_FALSE(b.is_dim("A"));
  Contraction c;
  c.agg = AggOp::kSum;
  c.comb = CombOp::kMul;
  c.out_indices = {IntExpr::index("i"), IntExpr::index("j")};
  c.out_sizes = {IntExpr::dim("M"), IntExpr::dim("N")};
  c.inputs = {{*a, {IntExpr::index("i"), IntExpr::index("k")}, {}},
              {*bb, {IntExpr::index("k"), IntExpr::index("j")}, {}}};
  auto id = b.add_contraction(c, kCall);
  REQUIRE(id.has_value());
  CHECK(b.program().nodes[*id].name == "_T0");
  REQUIRE(b.assign("C", *id, kCall).is_ok());
  CHECK(b.program().nodes[*id].name == "C");
  CHECK(*b.lookup("C", kCall) == *id);
  REQUIRE(b.add_output("C", kCall).is_ok());
  auto p = b.finish();
  REQUIRE(p.has_value());
  CHECK((*p)->name == "mm");
  CHECK((*p)->inputs == std::vector<ValueId>{0, 1});
  CHECK((*p)->outputs.size() == 1);
  CHECK(print_tile(**p) ==
        "function (A: f32[M, K], B[K, N]) -> (C) {\n"
        "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
        "}\n");
}

TEST_CASE("generated names skip taken names, a user name takes a temp's name over") {
  ProgramBuilder b;
  REQUIRE(b.add_input("_T0", std::nullopt, std::nullopt, at(1, 1)).has_value());
  ValueId one = b.add_int_literal(1, at(2, 1));
  CHECK(b.program().nodes[one].name == "_T1");
  auto sum = b.add_elementwise(OpKind::Add, {0, one}, {}, at(2, 3));
  REQUIRE(sum.has_value());
  CHECK(b.program().nodes[*sum].name == "_T2");
  REQUIRE(b.assign("_T1", *sum, at(2, 1)).is_ok());  // the literal gives up "_T1"
  CHECK(b.program().nodes[*sum].name == "_T1");
  CHECK(b.program().nodes[one].name == "_T3");
  check_error(b.lookup("_T3", at(3, 1)), StatusCode::kNotFound, "3:1: unknown tensor '_T3'");
  REQUIRE(b.assign("R", one, at(3, 1)).is_ok());
  CHECK(b.program().nodes[one].name == "R");
}

TEST_CASE("input errors") {
  ProgramBuilder b;
  REQUIRE(b.add_input("A", std::vector<std::string>{"N", ""}, std::nullopt, at(1, 5)).has_value());
  check_error(b.add_input("A", std::nullopt, std::nullopt, at(1, 9)), StatusCode::kInvalidArgument,
              "1:9: duplicate input 'A' (first declared at 1:5)");
  check_error(b.add_input("", std::nullopt, std::nullopt, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: an input needs a name");
  check_error(b.add_input("N", std::nullopt, std::nullopt, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: input 'N' has the name of a dimension of 'A'");
  check_error(b.add_input("B", std::vector<std::string>{"A"}, std::nullopt, kCall),
              StatusCode::kInvalidArgument,
              "plaidml_program_add: dimension 'A' of input 'B' has the name of a tensor");
}

TEST_CASE("elementwise and call errors") {
  ProgramBuilder b;
  ValueId a = *b.add_input("A", std::vector<std::string>{"N"}, std::nullopt, kCall);
  check_error(b.add_elementwise(OpKind::Add, {a}, {}, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: 'add' takes 2 tensor arguments, got 1");
  check_error(b.add_elementwise(OpKind::Exp, {7}, {}, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: unknown value id 7");
  check_error(b.add_call("frobnicate", {a}, {}, at(2, 4)), StatusCode::kNotFound,
              "2:4: unknown function 'frobnicate'");
  check_error(b.add_call("exp", {a}, {IntExpr::literal(1)}, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: 'exp' takes no integer arguments");
  check_error(b.add_call("as_bool", {a}, {IntExpr::literal(8)}, kCall),
              StatusCode::kInvalidArgument, "plaidml_program_add: as_bool(X) takes no bit width");
  check_error(b.add_call("as_int", {a}, {IntExpr::literal(8), IntExpr::literal(8)}, kCall),
              StatusCode::kInvalidArgument,
              "plaidml_program_add: as_int needs one bit width: as_int(X, bits) with bits 8, 16, "
              "32 or 64");
  check_error(b.add_call("reshape", {a}, {IntExpr::dim("Q")}, kCall), StatusCode::kNotFound,
              "plaidml_program_add: unknown dimension 'Q'");
  check_error(b.add_call("reshape", {a}, {nullptr}, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: missing integer expression");
  check_error(b.add_dim_literal(IntExpr::index("i", at(3, 3)), kCall), StatusCode::kInvalidArgument,
              "3:3: index variable 'i' cannot appear in a value expression");
  CHECK(b.add_call("as_float", {a}, {IntExpr::literal(64)}, kCall).has_value());
  CHECK(b.add_call("as_uint", {a}, {IntExpr::literal(16)}, kCall).has_value());
  CHECK(b.add_call("relu", {a}, {}, kCall).has_value());
  CHECK(b.add_call("sigmoid", {a}, {}, kCall).has_value());
  CHECK(b.add_call("cmp_lt", {a, a}, {}, kCall).has_value());
  auto n = b.add_dim_literal(IntExpr::dim("N"), kCall);
  REQUIRE(n.has_value());
  CHECK(b.program().nodes[*n].kind == NodeKind::kLiteral);
}

Contraction sum_over(ValueId a) {
  Contraction c;
  c.out_indices = {IntExpr::index("i")};
  c.out_sizes = {IntExpr::dim("N")};
  c.inputs = {{a, {IntExpr::index("i"), IntExpr::index("k")}, {}}};
  return c;
}

TEST_CASE("contraction errors") {
  ProgramBuilder b;
  ValueId a = *b.add_input("A", std::vector<std::string>{"N", "K"}, std::nullopt, kCall);
  CHECK(b.add_contraction(sum_over(a), kCall).has_value());

  auto c = sum_over(a);
  c.out_sizes.clear();
  check_error(b.add_contraction(c, at(4, 2)), StatusCode::kInvalidArgument,
              "4:2: the output has 1 indices but 0 sizes; every output dim needs a size");
  c = sum_over(a);
  c.comb = CombOp::kMul;
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: a contraction with '*' takes 2 input tensors, got 1");
  c.comb = CombOp::kCond;
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: a contraction with '== ?' takes 3 input tensors, got 1");
  c = sum_over(a);
  c.inputs.push_back(c.inputs[0]);
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: a contraction with a single input takes 1 input tensor, got 2");
  c = sum_over(a);
  c.agg = AggOp::kAssign;
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: index k is not in the output of an assign contraction");
  c = sum_over(a);
  c.out_sizes = {IntExpr::dim("Q", at(5, 9))};
  check_error(b.add_contraction(c, kCall), StatusCode::kNotFound, "5:9: unknown dimension 'Q'");
  c = sum_over(a);
  c.inputs[0].tensor = 99;
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: unknown value id 99");
  c = sum_over(a);
  c.default_value = -1;
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: unknown value id -1");
  c = sum_over(a);
  c.inputs[0].indices[1] = IntExpr::binary(IntOp::kMax, IntExpr::index("k"), IntExpr::literal(0));
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: index expression 'max(k, 0)' is not affine: max/min/floordiv "
              "of index variables");
  c = sum_over(a);
  c.constraints.push_back({IntExpr::index("k"), IntExpr::index("i"), at(6, 1)});
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "6:1: index variable 'i' cannot appear in a constraint bound");
  c = sum_over(a);
  auto bad = std::make_shared<IntExpr>();
  bad->op = IntOp::kAdd;  // no operands
  c.out_indices = {bad};
  check_error(b.add_contraction(c, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: malformed integer expression: operator takes 2 operands, "
              "got 0");
}

TEST_CASE("assignment, lookup, output and finish errors") {
  ProgramBuilder b;
  ValueId a = *b.add_input("A", std::vector<std::string>{"N"}, std::nullopt, at(1, 11));
  check_error(b.finish(), StatusCode::kInvalidArgument, "the program has no outputs");
  REQUIRE(b.assign("R", a, at(2, 3)).is_ok());
  check_error(b.assign("R", a, at(3, 3)), StatusCode::kInvalidArgument,
              "3:3: 'R' is assigned twice (first at 2:3)");
  check_error(b.assign("A", a, at(3, 3)), StatusCode::kInvalidArgument,
              "3:3: 'A' is an input (declared at 1:11) and cannot be assigned");
  check_error(b.assign("N", a, at(3, 3)), StatusCode::kInvalidArgument,
              "3:3: 'N' is a dimension of input 'A' and cannot be assigned");
  check_error(b.assign("", a, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: empty tensor name");
  check_error(b.assign("S", 12, kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: unknown value id 12");
  check_error(b.lookup("Z", at(4, 5)), StatusCode::kNotFound, "4:5: unknown tensor 'Z'");
  check_error(b.lookup("N", at(4, 5)), StatusCode::kNotFound,
              "4:5: 'N' is a dimension of input 'A', not a tensor");
  check_error(b.add_output("S", kCall), StatusCode::kNotFound,
              "plaidml_program_add: output 'S' is never assigned");
  REQUIRE(b.add_output("R", kCall).is_ok());
  check_error(b.add_output("R", kCall), StatusCode::kInvalidArgument,
              "plaidml_program_add: output 'R' is listed twice");
  auto p = b.finish();
  REQUIRE(p.has_value());
  CHECK((*p)->outputs[0].second == a);
}

}  // namespace
}  // namespace plaidml::ir
