#include <doctest/doctest.h>

#include "core/bind/program_maker.h"
#include "core/ir/bind.h"

namespace plaidml::ir {
namespace {

using namespace testing;  // NOLINT: IntExpr operators and builders

// R = op(X, Y) for X and Y of unknown rank; returns the bound R or the error.
Expected<BoundNode> bind_binary(OpKind op, Shape x, Shape y) {
  ProgramMaker m;
  ValueId a = m.input("X", std::nullopt);
  ValueId b = m.input("Y", std::nullopt);
  ValueId r = m.op(op, {a, b}, {}, "R");
  m.output(r);
  auto bound = bind(m.finish(), {x, y});
  if (!bound) return bound.status();
  return bound->nodes[r];
}

// R = op(X, literal).
Expected<BoundNode> bind_with_literal(OpKind op, Shape x, bool float_literal) {
  ProgramMaker m;
  ValueId a = m.input("X", std::nullopt);
  ValueId l = float_literal ? m.float_lit(0.5) : m.int_lit(2);
  ValueId r = m.op(op, {a, l}, {}, "R");
  m.output(r);
  auto bound = bind(m.finish(), {x});
  if (!bound) return bound.status();
  return bound->nodes[r];
}

Expected<BoundNode> bind_unary(OpKind op, Shape x, std::vector<IntExprPtr> args = {}) {
  ProgramMaker m;
  ValueId a = m.input("X", std::nullopt);
  ValueId r = m.op(op, {a}, std::move(args), "R");
  m.output(r);
  auto bound = bind(m.finish(), {x});
  if (!bound) return bound.status();
  return bound->nodes[r];
}

TEST_CASE("elementwise: numpy broadcasting") {
  auto r = bind_binary(OpKind::Add, Shape(DType::F32, {2, 1, 3}), Shape(DType::F32, {4, 1}));
  REQUIRE(r.has_value());
  CHECK(r->shape == Shape(DType::F32, {2, 4, 3}));
  auto s = bind_binary(OpKind::Mul, Shape(DType::F32, {}), Shape(DType::F32, {5}));
  REQUIRE(s.has_value());
  CHECK(s->shape == Shape(DType::F32, {5}));
}

TEST_CASE("elementwise: broadcast mismatch names both shapes and the expression") {
  auto r = bind_binary(OpKind::Add, Shape(DType::F32, {2, 3}), Shape(DType::F32, {4}));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "3:1: cannot broadcast 'X' (f32[2, 3]) with 'Y' (f32[4]) in 'X + Y'");
}

TEST_CASE("elementwise: broadcast mismatch inside a nested expression") {
  ProgramMaker m;
  ValueId a = m.input("A", std::nullopt);
  ValueId b = m.input("B", std::nullopt);
  ValueId e = m.op(OpKind::Exp, {a});
  ValueId r = m.op(OpKind::Sub, {e, b});
  m.output(m.op(OpKind::Relu, {r}, {}, "R"));
  auto bound = bind(m.finish(), {Shape(DType::F16, {3}), Shape(DType::F16, {2, 2})});
  REQUIRE_FALSE(bound.has_value());
  CHECK(bound.status().message() ==
        "4:1: cannot broadcast 'exp(A)' (f16[3]) with 'B' (f16[2, 2]) in 'exp(A) - B'");
}

TEST_CASE("elementwise: select broadcasts three operands and names the clashing pair") {
  ProgramMaker m;
  ValueId c = m.input("C", std::nullopt);
  ValueId a = m.input("A", std::nullopt);
  ValueId b = m.input("B", std::nullopt);
  ValueId r = m.op(OpKind::Select, {c, a, b}, {}, "R");
  m.output(r);
  auto ok =
      bind(m.finish(), {Shape(DType::Bool, {4, 1}), Shape(DType::I8, {3}), Shape(DType::F16, {})});
  REQUIRE(ok.has_value());
  CHECK(ok->nodes[r].shape == Shape(DType::F16, {4, 3}));
  auto bad = bind(m.finish(),
                  {Shape(DType::Bool, {4, 1}), Shape(DType::I8, {3}), Shape(DType::F16, {5, 1})});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() ==
        "4:1: cannot broadcast 'C' (bool[4, 1]) with 'B' (f16[5, 1]) in 'C ? A : B'");
}

TEST_CASE("elementwise: dtype promotion spot checks") {
  struct Row {
    DType a, b, want;
  };
  const Row rows[] = {
      {DType::F16, DType::F32, DType::F32},  {DType::I8, DType::U8, DType::I16},
      {DType::I64, DType::U64, DType::I64},  {DType::U32, DType::I32, DType::I64},
      {DType::Bool, DType::I8, DType::I8},   {DType::I64, DType::F16, DType::F16},
      {DType::F16, DType::BF16, DType::F32}, {DType::U16, DType::U8, DType::U16},
  };
  for (const auto& row : rows) {
    auto r = bind_binary(OpKind::Add, Shape(row.a, {2}), Shape(row.b, {2}));
    REQUIRE(r.has_value());
    CHECK(r->shape.dtype == row.want);
    CHECK(r->compute_dtype == row.want);
    CHECK_FALSE(r->weak);
  }
}

TEST_CASE("elementwise: weak literals yield to tensors") {
  auto h = bind_with_literal(OpKind::Mul, Shape(DType::F16, {2}), false);
  REQUIRE(h.has_value());
  CHECK(h->shape.dtype == DType::F16);  // an int literal beside f16 stays f16
  auto i = bind_with_literal(OpKind::Add, Shape(DType::I8, {2}), true);
  REQUIRE(i.has_value());
  CHECK(i->shape.dtype == DType::F32);  // a float literal beside an int tensor gives f32
  auto u = bind_with_literal(OpKind::Shl, Shape(DType::U8, {2}), false);
  REQUIRE(u.has_value());
  CHECK(u->shape.dtype == DType::U8);
  auto b = bind_with_literal(OpKind::Add, Shape(DType::Bool, {2}), false);
  REQUIRE(b.has_value());
  CHECK(b->shape.dtype == DType::I32);
  auto d = bind_with_literal(OpKind::Add, Shape(DType::F64, {2}), true);
  REQUIRE(d.has_value());
  CHECK(d->shape.dtype == DType::F64);
}

TEST_CASE("elementwise: an op on literals only stays weak") {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  ValueId two = m.op(OpKind::Add, {m.int_lit(1), m.int_lit(1)});
  ValueId half = m.op(OpKind::Div, {two, m.float_lit(4.0)});
  ValueId r = m.op(OpKind::Mul, {x, half}, {}, "R");
  m.output(r);
  auto bound = bind(m.finish(), {Shape(DType::BF16, {3})});
  REQUIRE(bound.has_value());
  CHECK(bound->nodes[two].weak);
  CHECK(bound->nodes[two].shape == Shape(DType::I32, {}));
  CHECK(bound->nodes[half].weak);
  CHECK(bound->nodes[half].shape.dtype == DType::F32);
  CHECK(bound->nodes[r].shape == Shape(DType::BF16, {3}));
  CHECK_FALSE(bound->nodes[r].weak);
}

TEST_CASE("elementwise: comparisons give bool and compute in the promoted dtype") {
  auto r = bind_binary(OpKind::Lt, Shape(DType::I8, {3}), Shape(DType::F16, {3}));
  REQUIRE(r.has_value());
  CHECK(r->shape.dtype == DType::Bool);
  CHECK(r->compute_dtype == DType::F16);
}

TEST_CASE("elementwise: math on integers computes in f32") {
  auto e = bind_unary(OpKind::Exp, Shape(DType::I32, {2}));
  REQUIRE(e.has_value());
  CHECK(e->shape.dtype == DType::F32);
  CHECK(e->compute_dtype == DType::F32);
  auto h = bind_unary(OpKind::Sqrt, Shape(DType::F16, {2}));
  REQUIRE(h.has_value());
  CHECK(h->shape.dtype == DType::F16);
  auto p = bind_binary(OpKind::Pow, Shape(DType::I32, {2}), Shape(DType::I32, {2}));
  REQUIRE(p.has_value());
  CHECK(p->shape.dtype == DType::F32);
  auto a = bind_unary(OpKind::Abs, Shape(DType::I8, {2}));
  REQUIRE(a.has_value());
  CHECK(a->shape.dtype == DType::I8);
  auto rc = bind_unary(OpKind::Recip, Shape(DType::I16, {2}));
  REQUIRE(rc.has_value());
  CHECK(rc->shape.dtype == DType::F32);
}

TEST_CASE("elementwise: bitwise on floats is a type error") {
  auto r = bind_binary(OpKind::BitAnd, Shape(DType::I32, {2}), Shape(DType::F32, {2}));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "3:1: bitwise operator '&' needs integer or bool operands, but 'Y' is f32 in 'X & Y'");
  auto n = bind_unary(OpKind::BitNot, Shape(DType::F16, {2}));
  REQUIRE_FALSE(n.has_value());
  CHECK(n.status().message() ==
        "2:1: bitwise operator '~' needs integer or bool operands, but 'X' is f16 in '~X'");
  auto lit_float = bind_with_literal(OpKind::Shl, Shape(DType::I32, {2}), true);
  REQUIRE_FALSE(lit_float.has_value());
  CHECK(
      lit_float.status().message() ==
      "3:1: bitwise operator '<<' needs integer or bool operands, but '0.5' is f32 in 'X << 0.5'");
  auto ok = bind_binary(OpKind::BitXor, Shape(DType::Bool, {2}), Shape(DType::Bool, {2}));
  REQUIRE(ok.has_value());
  CHECK(ok->shape.dtype == DType::Bool);
}

TEST_CASE("elementwise: bitcast pairs each float type with the integer of its width") {
  const std::pair<DType, DType> pairs[] = {{DType::F32, DType::I32}, {DType::F64, DType::I64},
                                           {DType::I32, DType::F32}, {DType::U32, DType::F32},
                                           {DType::I64, DType::F64}, {DType::U64, DType::F64}};
  for (const auto& [from, to] : pairs) {
    auto b = bind_unary(OpKind::Bitcast, Shape(from, {2}));
    REQUIRE(b.has_value());
    CHECK(b->shape.dtype == to);
  }
  for (DType t : {DType::F16, DType::BF16, DType::I16, DType::U8, DType::Bool}) {
    auto bad = bind_unary(OpKind::Bitcast, Shape(t, {2}));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.status().code() == StatusCode::kTypeError);
    CHECK(bad.status().message() == std::string("2:1: bitcast needs a 32- or 64-bit float or "
                                                 "integer, but 'X' is ") +
                                        std::string(dtype_name(t)) + " in 'bitcast(X)'");
  }
}

TEST_CASE("elementwise: casts by bits") {
  struct Row {
    OpKind op;
    int64_t bits;
    DType want;
  };
  const Row rows[] = {
      {OpKind::AsFloat, 16, DType::F16}, {OpKind::AsFloat, 32, DType::F32},
      {OpKind::AsFloat, 64, DType::F64}, {OpKind::AsBFloat, 16, DType::BF16},
      {OpKind::AsInt, 8, DType::I8},     {OpKind::AsInt, 64, DType::I64},
      {OpKind::AsUInt, 16, DType::U16},  {OpKind::AsUInt, 32, DType::U32},
  };
  for (const auto& row : rows) {
    auto r = bind_unary(row.op, Shape(DType::F32, {2, 2}), {lit(row.bits)});
    REQUIRE(r.has_value());
    CHECK(r->shape == Shape(row.want, {2, 2}));
    CHECK(r->compute_dtype == row.want);
    CHECK(r->int_args == std::vector<int64_t>{row.bits});
  }
  auto b = bind_unary(OpKind::AsBool, Shape(DType::F32, {2}));
  REQUIRE(b.has_value());
  CHECK(b->shape == Shape(DType::Bool, {2}));
}

TEST_CASE("elementwise: a cast width the cast lacks is a type error") {
  auto r = bind_unary(OpKind::AsFloat, Shape(DType::I32, {2}), {lit(8)});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "2:1: as_float has no 8-bit form (widths: 16, 32 or 64) in 'as_float(X, 8)'");
  auto bf = bind_unary(OpKind::AsBFloat, Shape(DType::I32, {2}), {lit(32)});
  REQUIRE_FALSE(bf.has_value());
  CHECK(bf.status().message() ==
        "2:1: as_bfloat has no 32-bit form (widths: 16) in 'as_bfloat(X, 32)'");
  auto u = bind_unary(OpKind::AsUInt, Shape(DType::I32, {2}), {lit(12)});
  REQUIRE_FALSE(u.has_value());
  CHECK(u.status().message() ==
        "2:1: as_uint has no 12-bit form (widths: 8, 16, 32 or 64) in 'as_uint(X, 12)'");
  auto none = bind_unary(OpKind::AsInt, Shape(DType::I32, {2}));
  REQUIRE_FALSE(none.has_value());
  CHECK(none.status().message() == "2:1: as_int needs a bit width, as in as_int(X, 32)");
}

}  // namespace
}  // namespace plaidml::ir
