#include <doctest/doctest.h>

#include "core/bind/program_maker.h"
#include "core/ir/bind.h"

namespace plaidml::ir {
namespace {

using namespace testing;  // NOLINT: IntExpr operators and builders

std::shared_ptr<const Program> two_inputs() {
  ProgramMaker m;
  ValueId a = m.input("A", std::vector<std::string>{"M", "K"});
  ValueId b = m.input("B", std::vector<std::string>{"K", "N"});
  m.output(m.op(OpKind::Add, {a, a}, {}, "C"));
  (void)b;
  return m.finish();
}

TEST_CASE("bind: inputs take the given shapes and bind their dims") {
  auto r = bind(two_inputs(), {Shape(DType::F32, {2, 3}), Shape(DType::F32, {3, 4})});
  REQUIRE(r.has_value());
  CHECK(r->dims.at("M") == 2);
  CHECK(r->dims.at("K") == 3);
  CHECK(r->dims.at("N") == 4);
  CHECK(r->nodes[0].shape == Shape(DType::F32, {2, 3}));
  CHECK(r->input_shapes.size() == 2);
  REQUIRE(r->output_shapes.size() == 1);
  CHECK(r->output_shapes[0] == Shape(DType::F32, {2, 3}));
}

TEST_CASE("bind: one dim bound to two sizes names both tensors and sizes") {
  auto r = bind(two_inputs(), {Shape(DType::F32, {2, 3}), Shape(DType::F32, {4, 4})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() == "2:1: dimension 'K' is 3 in 'A' but 4 in 'B'");
}

TEST_CASE("bind: wrong input count") {
  auto r = bind(two_inputs(), {Shape(DType::F32, {2, 3})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "program 'test' takes 2 inputs (A, B) but 1 shape was given");
}

TEST_CASE("bind: rank mismatch with the declaration") {
  auto r = bind(two_inputs(), {Shape(DType::F32, {2, 3}), Shape(DType::F32, {3})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "2:1: input 'B' is declared with 2 dimensions [K, N] but was given shape f32[3]");
}

TEST_CASE("bind: declared dtype mismatch") {
  ProgramMaker m;
  ValueId a = m.input("A", std::vector<std::string>{"N"}, DType::F16);
  m.output(m.op(OpKind::Neg, {a}, {}, "R"));
  auto r = bind(m.finish(), {Shape(DType::F32, {5})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() == "1:1: input 'A' is declared as f16 but was given f32[5]");
  auto ok = bind(m.finish(), {Shape(DType::F16, {5})});
  REQUIRE(ok.has_value());
  CHECK(ok->output_shapes[0] == Shape(DType::F16, {5}));
}

TEST_CASE("bind: negative input size is rejected") {
  auto r = bind(two_inputs(), {Shape(DType::F32, {2, -3}), Shape(DType::F32, {3, 4})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "input 'A' was given a negative size: [2, -3]");
}

TEST_CASE("bind: unknown rank and unnamed dims accept any size") {
  ProgramMaker m;
  ValueId x = m.input("X", std::nullopt);
  ValueId y = m.input("Y", std::vector<std::string>{"", ""});
  ValueId z = m.input("Z", std::vector<std::string>{});
  m.output(m.op(OpKind::Add, {x, y}, {}, "R"));
  m.output(m.op(OpKind::Mul, {z, z}, {}, "S"));
  auto r = bind(m.finish(),
                {Shape(DType::I32, {7, 2, 3}), Shape(DType::I32, {2, 3}), Shape(DType::I64, {})});
  REQUIRE(r.has_value());
  CHECK(r->output_shapes[0] == Shape(DType::I32, {7, 2, 3}));
  CHECK(r->output_shapes[1] == Shape(DType::I64, {}));
  CHECK(r->dims.empty());
  auto bad =
      bind(m.finish(), {Shape(DType::I32, {7}), Shape(DType::I32, {2, 3}), Shape(DType::I64, {1})});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() ==
        "3:1: input 'Z' is declared with 0 dimensions [] but was given shape i64[1]");
}

TEST_CASE("bind: a dim used as a value is a weak integer literal") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"}, DType::F16);
  ValueId n = m.dim_lit(testing::dim("N") * testing::lit(2));
  m.output(m.op(OpKind::Div, {x, n}, {}, "R"));
  auto r = bind(m.finish(), {Shape(DType::F16, {6})});
  REQUIRE(r.has_value());
  CHECK(r->nodes[n].weak);
  REQUIRE(r->nodes[n].int_args.size() == 1);
  CHECK(r->nodes[n].int_args[0] == 12);
  CHECK(r->nodes[n].shape == Shape(DType::I32, {}));
  CHECK(r->output_shapes[0] == Shape(DType::F16, {6}));
}

TEST_CASE("broadcast_dims follows numpy") {
  CHECK(broadcast_dims({2, 1, 3}, {4, 1}) == std::vector<int64_t>{2, 4, 3});
  CHECK(broadcast_dims({}, {5}) == std::vector<int64_t>{5});
  CHECK(broadcast_dims({1}, {0}) == std::vector<int64_t>{0});
  CHECK(broadcast_dims({3}, {3}) == std::vector<int64_t>{3});
  CHECK_FALSE(broadcast_dims({2, 3}, {4}).has_value());
  CHECK_FALSE(broadcast_dims({2}, {3, 3}).has_value());
}

}  // namespace
}  // namespace plaidml::ir
