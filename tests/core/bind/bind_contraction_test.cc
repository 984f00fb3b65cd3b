#include <doctest/doctest.h>

#include "core/bind/program_maker.h"
#include "core/ir/bind.h"

namespace plaidml::ir {
namespace {

using namespace testing;  // NOLINT: IntExpr operators and builders

Contraction sum_of(CombOp comb, std::vector<IntExprPtr> out, std::vector<IntExprPtr> sizes,
                   std::vector<TensorAccess> inputs) {
  Contraction c;
  c.agg = AggOp::kSum;
  c.comb = comb;
  c.out_indices = std::move(out);
  c.out_sizes = std::move(sizes);
  c.inputs = std::move(inputs);
  return c;
}

// C[i, j : M, N] = +(A[i, k] * B[k, j])
std::shared_ptr<const Program> matmul() {
  ProgramMaker m;
  ValueId a = m.input("A", std::vector<std::string>{"M", "K"});
  ValueId b = m.input("B", std::vector<std::string>{"K", "N"});
  m.output(m.contraction(
      "C", sum_of(CombOp::kMul, {idx("i"), idx("j")}, {dim("M"), dim("N")},
                  {access(a, {idx("i"), idx("k")}), access(b, {idx("k"), idx("j")})})));
  return m.finish();
}

void check_range(const BoundContraction& c, size_t pos, const std::string& name, int64_t lo,
                 int64_t hi) {
  REQUIRE(c.indices.size() > pos);
  CHECK(c.indices[pos] == name);
  CHECK(c.ranges[pos].lo == lo);
  CHECK(c.ranges[pos].hi == hi);
}

TEST_CASE("contraction: matmul shape, dtype and bounds") {
  auto b = bind(matmul(), {Shape(DType::F32, {2, 3}), Shape(DType::F32, {3, 4})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::F32, {2, 4}));
  const auto& c = *b->nodes[2].contraction;
  check_range(c, 0, "i", 0, 1);
  check_range(c, 1, "j", 0, 3);
  check_range(c, 2, "k", 0, 2);
  CHECK_FALSE(c.empty);
  CHECK(c.residual.empty());
  CHECK(c.conditions.size() == 6);
  CHECK(c.inputs == std::vector<ValueId>{0, 1});
  REQUIRE(c.in_access.size() == 2);
  CHECK(c.in_access[1][0] == poly::Affine::var("k"));
  CHECK(c.out_access[1] == poly::Affine::var("j"));
}

TEST_CASE("contraction: dtype is the promotion of the inputs") {
  auto h = bind(matmul(), {Shape(DType::F16, {2, 3}), Shape(DType::F32, {3, 4})});
  REQUIRE(h.has_value());
  CHECK(h->output_shapes[0].dtype == DType::F32);
  auto i = bind(matmul(), {Shape(DType::I8, {2, 3}), Shape(DType::U8, {3, 4})});
  REQUIRE(i.has_value());
  CHECK(i->output_shapes[0].dtype == DType::I16);
  CHECK(i->nodes[2].compute_dtype == DType::I16);
}

TEST_CASE("contraction: dim mismatch through the inputs") {
  auto b = bind(matmul(), {Shape(DType::F32, {2, 3}), Shape(DType::F32, {5, 4})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().message() == "2:1: dimension 'K' is 3 in 'A' but 5 in 'B'");
}

// O[n, x, co : N, (X + 1)/2, CO] = +(I[n, 2*x + k - 1, ci] * K[k, ci, co]): "same" padding,
// stride 2.
TEST_CASE("contraction: strided padded conv has exact bounds and one residual") {
  ProgramMaker m;
  ValueId in = m.input("I", std::vector<std::string>{"N", "X", "CI"});
  ValueId k = m.input("K", std::vector<std::string>{"KX", "CI", "CO"});
  auto pos = 2 * idx("x") + idx("k") - 1;
  ValueId o = m.contraction("O", sum_of(CombOp::kMul, {idx("n"), idx("x"), idx("co")},
                                        {dim("N"), (dim("X") + 1) / 2, dim("CO")},
                                        {access(in, {idx("n"), pos, idx("ci")}),
                                         access(k, {idx("k"), idx("ci"), idx("co")})}));
  m.output(o);
  auto b = bind(m.finish(), {Shape(DType::F32, {1, 5, 2}), Shape(DType::F32, {3, 2, 4})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::F32, {1, 3, 4}));
  const auto& c = *b->nodes[o].contraction;
  check_range(c, 0, "n", 0, 0);
  check_range(c, 1, "x", 0, 2);
  check_range(c, 2, "co", 0, 3);
  check_range(c, 3, "k", 0, 2);
  check_range(c, 4, "ci", 0, 1);
  REQUIRE(c.residual.size() == 1);
  CHECK(c.residual[0].to_string() == "0 <= k + 2*x - 1 <= 4");
}

// O[n, x, y, co : N, X - KX + 1, Y - KY + 1, CO] = +(I[n, x + i, y + j, ci] * K[i, j, ci, co])
TEST_CASE("contraction: valid 2-D conv") {
  ProgramMaker m;
  ValueId in = m.input("I", std::vector<std::string>{"N", "X", "Y", "CI"});
  ValueId k = m.input("K", std::vector<std::string>{"KX", "KY", "CI", "CO"});
  ValueId o = m.contraction(
      "O",
      sum_of(CombOp::kMul, {idx("n"), idx("x"), idx("y"), idx("co")},
             {dim("N"), dim("X") - dim("KX") + lit(1), dim("Y") - dim("KY") + lit(1), dim("CO")},
             {access(in, {idx("n"), idx("x") + idx("i"), idx("y") + idx("j"), idx("ci")}),
              access(k, {idx("i"), idx("j"), idx("ci"), idx("co")})}));
  m.output(o);
  auto b = bind(m.finish(), {Shape(DType::F16, {2, 7, 6, 3}), Shape(DType::F16, {3, 2, 3, 8})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::F16, {2, 5, 5, 8}));
  const auto& c = *b->nodes[o].contraction;
  CHECK(c.indices == std::vector<std::string>{"n", "x", "y", "co", "i", "j", "ci"});
  check_range(c, 1, "x", 0, 4);
  check_range(c, 4, "i", 0, 2);
  CHECK(c.residual.empty());
}

// O[i : 5] = +(I[(i - j + 1)/2] * K[j]) with I, K of size 3.
TEST_CASE("contraction: rational index") {
  ProgramMaker m;
  ValueId in = m.input("I", std::vector<std::string>{"N"});
  ValueId k = m.input("K", std::vector<std::string>{"N"});
  ValueId o = m.contraction(
      "O", sum_of(CombOp::kMul, {idx("i")}, {lit(5)},
                  {access(in, {(idx("i") - idx("j") + 1) / 2}), access(k, {idx("j")})}));
  m.output(o);
  auto b = bind(m.finish(), {Shape(DType::I32, {3}), Shape(DType::I32, {3})});
  REQUIRE(b.has_value());
  CHECK(b->output_shapes[0] == Shape(DType::I32, {5}));
  const auto& c = *b->nodes[o].contraction;
  check_range(c, 0, "i", 0, 4);
  check_range(c, 1, "j", 0, 2);
  CHECK(c.in_access[0][0].denominator() == 2);
  CHECK(c.in_access[0][0].to_string() == "(i - j + 1)/2");
  CHECK(c.residual.empty());
}

// S[i : N] = +(X[k]), i - k < N
TEST_CASE("contraction: user constraint stays as a residual") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  Contraction c = sum_of(CombOp::kNone, {idx("i")}, {dim("N")}, {access(x, {idx("k")})});
  c.constraints.push_back(UserConstraint{idx("i") - idx("k"), dim("N"), {}});
  ValueId s = m.contraction("S", c);
  m.output(s);
  auto b = bind(m.finish(), {Shape(DType::F32, {4})});
  REQUIRE(b.has_value());
  const auto& bc = *b->nodes[s].contraction;
  check_range(bc, 0, "i", 0, 3);
  check_range(bc, 1, "k", 0, 3);
  REQUIRE(bc.residual.size() == 1);
  CHECK(bc.residual[0].to_string() == "0 <= i - k <= 3");
  CHECK(bc.conditions.size() == 3);
}

TEST_CASE("contraction: infeasible constraints give an empty contraction") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  Contraction c = sum_of(CombOp::kNone, {idx("i")}, {dim("N")}, {access(x, {idx("i") + 10})});
  ValueId s = m.contraction("S", c);
  m.output(s);
  auto b = bind(m.finish(), {Shape(DType::F32, {4})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[s].contraction->empty);
  CHECK(b->output_shapes[0] == Shape(DType::F32, {4}));
}

TEST_CASE("contraction: comparison forms") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N", "M"}, DType::F16);
  ValueId mx = m.input("MX", std::vector<std::string>{"N"}, DType::F16);
  ValueId id = m.input("Idx", std::vector<std::string>{"M"}, DType::I32);
  ValueId eq =
      m.contraction("E", sum_of(CombOp::kEq, {idx("i"), idx("j")}, {dim("N"), dim("M")},
                                {access(x, {idx("i"), idx("j")}), access(mx, {idx("i")})}));
  ValueId cond = m.contraction("O", sum_of(CombOp::kCond, {idx("i")}, {dim("N")},
                                           {access(x, {idx("i"), idx("j")}), access(mx, {idx("i")}),
                                            access(id, {idx("j")})}));
  m.output(eq);
  m.output(cond);
  auto b =
      bind(m.finish(), {Shape(DType::F16, {2, 3}), Shape(DType::F16, {2}), Shape(DType::I32, {3})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[eq].shape == Shape(DType::Bool, {2, 3}));
  CHECK(b->nodes[eq].compute_dtype == DType::F16);
  CHECK(b->nodes[cond].shape == Shape(DType::I32, {2}));
  CHECK(b->nodes[cond].compute_dtype == DType::F16);
}

TEST_CASE("contraction: a literal input and a literal default") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"}, DType::F16);
  ValueId two = m.int_lit(2);
  Contraction c =
      sum_of(CombOp::kMul, {idx("i")}, {dim("N")}, {access(x, {idx("i")}), access(two, {})});
  c.default_value = m.float_lit(1.5);
  ValueId o = m.contraction("O", c);
  m.output(o);
  auto b = bind(m.finish(), {Shape(DType::F16, {3})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[o].shape == Shape(DType::F16, {3}));
  CHECK(b->nodes[o].contraction->default_value.has_value());
}

TEST_CASE("contraction: default that does not broadcast to the output") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  ValueId d = m.input("D", std::vector<std::string>{"M"});
  Contraction c = sum_of(CombOp::kNone, {idx("i")}, {dim("N")}, {access(x, {idx("i")})});
  c.default_value = d;
  m.output(m.contraction("O", c));
  auto b = bind(m.finish(), {Shape(DType::F32, {3}), Shape(DType::F32, {2})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kTypeError);
  CHECK(b.status().message() ==
        "3:1: contraction 'O': default value 'D' (f32[2]) does not broadcast to the output shape "
        "[3]");
}

TEST_CASE("contraction: errors name the contraction and the expression") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N", "M"});
  m.output(m.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {dim("N") - lit(5)},
                                     {access(x, {idx("i"), idx("j")})})));
  auto neg = bind(m.finish(), {Shape(DType::F32, {3, 2})});
  REQUIRE_FALSE(neg.has_value());
  CHECK(neg.status().code() == StatusCode::kTypeError);
  CHECK(neg.status().message() ==
        "2:1: contraction 'O': size -2 of output dimension 0 ('N - 5') is negative: sizes must "
        "be 0 or more");

  ProgramMaker p;
  ValueId y = p.input("X", std::vector<std::string>{"N", "M"});
  p.output(p.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {dim("N")},
                                     {access(y, {idx("i") * idx("j"), idx("j")})})));
  auto na = bind(p.finish(), {Shape(DType::F32, {3, 2})});
  REQUIRE_FALSE(na.has_value());
  CHECK(na.status().message() ==
        "2:1: contraction 'O': index expression 'i * j' is not affine: a product, max or min "
        "needs a constant operand");

  ProgramMaker q;
  ValueId z = q.input("X", std::vector<std::string>{"N", "M"});
  q.output(
      q.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {dim("N")}, {access(z, {idx("i")})})));
  auto rank = bind(q.finish(), {Shape(DType::F32, {3, 2})});
  REQUIRE_FALSE(rank.has_value());
  CHECK(rank.status().message() ==
        "2:1: contraction 'O': 'X' has 2 dimensions (f32[3, 2]) but is indexed with 1 index");
}

TEST_CASE("contraction: unbounded index") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  // k cancels out of the access, so nothing limits it.
  m.output(m.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {dim("N")},
                                     {access(x, {idx("i") + idx("k") - idx("k")})})));
  auto b = bind(m.finish(), {Shape(DType::F32, {3})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kTypeError);
  CHECK(b.status().message() ==
        "2:1: contraction 'O': index 'k' is unbounded: it appears in no tensor access or "
        "constraint that limits it");
}

TEST_CASE("contraction: size expression with an index variable or unknown dim") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  m.output(
      m.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {dim("Q")}, {access(x, {idx("i")})})));
  auto b = bind(m.finish(), {Shape(DType::F32, {3})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().message() ==
        "2:1: contraction 'O': unknown dimension 'Q': no input declares a dimension of that name");
  ProgramMaker p;
  ValueId y = p.input("X", std::vector<std::string>{"N"});
  p.output(
      p.contraction("O", sum_of(CombOp::kNone, {idx("i")}, {idx("i")}, {access(y, {idx("i")})})));
  auto c = bind(p.finish(), {Shape(DType::F32, {3})});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.status().message() ==
        "2:1: contraction 'O': size expression 'i' uses the index variable 'i': sizes may use "
        "only dimensions and integers");
}

}  // namespace
}  // namespace plaidml::ir
