#include <doctest/doctest.h>

#include "core/bind/program_maker.h"
#include "core/ir/bind.h"

namespace plaidml::ir {
namespace {

using namespace testing;  // NOLINT: IntExpr operators and builders

TEST_CASE("reshape: dims from expressions over dims") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N", "M"}, DType::I16);
  ValueId r = m.op(OpKind::Reshape, {x}, {dim("N") * dim("M"), lit(1)}, "R");
  m.output(r);
  auto b = bind(m.finish(), {Shape(DType::I16, {2, 3})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[r].shape == Shape(DType::I16, {6, 1}));
  CHECK(b->nodes[r].int_args == std::vector<int64_t>{6, 1});
}

TEST_CASE("reshape: a different element count names both dim lists") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N", "M"});
  m.output(m.op(OpKind::Reshape, {x}, {lit(4), dim("N")}, "R"));
  auto b = bind(m.finish(), {Shape(DType::F32, {2, 3})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kTypeError);
  CHECK(b.status().message() ==
        "2:1: reshape of 'X' from [2, 3] to [4, 2] changes the element count from 6 to 8");
}

TEST_CASE("reshape: negative size and division by zero") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  m.output(m.op(OpKind::Reshape, {x}, {lit(0) - dim("N")}, "R"));
  auto b = bind(m.finish(), {Shape(DType::F32, {2})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().message() == "2:1: reshape of 'X' to [-2] has a negative size");
  ProgramMaker z;
  ValueId y = z.input("X", std::vector<std::string>{"N"});
  z.output(z.op(OpKind::Reshape, {y}, {dim("N") / (dim("N") - 2)}, "R"));
  auto d = bind(z.finish(), {Shape(DType::F32, {2})});
  REQUIRE_FALSE(d.has_value());
  CHECK(d.status().code() == StatusCode::kTypeError);
  CHECK(d.status().message() ==
        "2:1: argument 2 of 'reshape(X, N / (N - 2))': size expression 'N / (N - 2)' divides "
        "by zero");
}

TEST_CASE("index and shape") {
  ProgramMaker m;
  ValueId x = m.input("X", std::nullopt, DType::F64);
  ValueId i = m.op(OpKind::Index, {x}, {lit(1)}, "I");
  ValueId s = m.op(OpKind::ShapeOf, {x}, {}, "S");
  m.output(i);
  m.output(s);
  auto b = bind(m.finish(), {Shape(DType::F64, {4, 5, 6})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[i].shape == Shape(DType::I32, {4, 5, 6}));
  CHECK(b->nodes[s].shape == Shape(DType::I32, {3}));
  auto bad = bind(m.finish(), {Shape(DType::F64, {4})});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() ==
        "2:1: index axis 1 is out of range for 'X' (f64[4]) in 'index(X, 1)'");
}

TEST_CASE("gather and scatter") {
  ProgramMaker m;
  ValueId v = m.input("V", std::nullopt);
  ValueId idx = m.input("I", std::nullopt);
  ValueId e = m.input("E", std::nullopt);
  ValueId g = m.op(OpKind::Gather, {v, idx}, {}, "G");
  ValueId s = m.op(OpKind::Scatter, {e, idx, v}, {}, "S");
  m.output(g);
  m.output(s);
  auto b = bind(m.finish(), {Shape(DType::F16, {10, 3}), Shape(DType::I32, {2, 4}),
                             Shape(DType::F32, {2, 4, 3})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[g].shape == Shape(DType::F16, {2, 4, 3}));
  CHECK(b->nodes[s].shape == Shape(DType::F32, {10, 3}));
  auto bad_idx = bind(
      m.finish(), {Shape(DType::F16, {10, 3}), Shape(DType::F32, {2}), Shape(DType::F32, {2, 3})});
  REQUIRE_FALSE(bad_idx.has_value());
  CHECK(bad_idx.status().message() ==
        "4:1: gather indices 'I' must have an integer dtype, but they are f32 in 'gather(V, I)'");
  auto bad_e = bind(
      m.finish(), {Shape(DType::F16, {10, 3}), Shape(DType::I64, {2}), Shape(DType::F32, {2, 4})});
  REQUIRE_FALSE(bad_e.has_value());
  CHECK(bad_e.status().message() ==
        "5:1: scatter updates 'E' have dims [2, 4] but the indices 'I' and the shape 'V' need "
        "[2, 3] in 'scatter(E, I, V)'");
  auto scalar =
      bind(m.finish(), {Shape(DType::F16, {}), Shape(DType::I64, {2}), Shape(DType::F32, {2})});
  REQUIRE_FALSE(scalar.has_value());
  CHECK(scalar.status().message() ==
        "4:1: gather needs a tensor of rank 1 or more, but 'V' is f16[]");
}

TEST_CASE("prng: step, state and value") {
  ProgramMaker m;
  ValueId st = m.input("S", std::nullopt);
  ValueId step = m.op(OpKind::PrngStep, {st}, {lit(2), dim("N")});
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  ValueId ns = m.op(OpKind::PrngState, {step}, {}, "NS");
  ValueId val = m.op(OpKind::PrngValue, {step}, {}, "V");
  m.output(ns);
  m.output(val);
  (void)x;
  // X declares N after the step uses it: dims are bound from all inputs before any node.
  auto b = bind(m.finish(), {Shape(DType::U32, {3, 2048}), Shape(DType::F32, {5})});
  REQUIRE(b.has_value());
  CHECK(b->nodes[step].shape == Shape(DType::U32, {2, 5}));
  CHECK(b->nodes[ns].shape == Shape(DType::U32, {3, 2048}));
  CHECK(b->nodes[val].shape == Shape(DType::F32, {2, 5}));
  auto bad = bind(m.finish(), {Shape(DType::U32, {3, 16}), Shape(DType::F32, {5})});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() ==
        "2:1: prng_step state 'S' must be u32[3, 2048], but it is u32[3, 16]");
}

TEST_CASE("prng: state and value need a prng_step") {
  ProgramMaker m;
  ValueId x = m.input("X", std::nullopt);
  m.output(m.op(OpKind::PrngValue, {x}, {}, "V"));
  auto b = bind(m.finish(), {Shape(DType::U32, {3, 2048})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().message() == "2:1: prng_value needs the result of prng_step, but got 'X'");
}

}  // namespace
}  // namespace plaidml::ir
