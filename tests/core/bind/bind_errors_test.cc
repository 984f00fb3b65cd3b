// The remaining user-facing bind errors: each message checked with its status code.
#include <doctest/doctest.h>

#include <limits>

#include "core/bind/program_maker.h"
#include "core/ir/bind.h"

namespace plaidml::ir {
namespace {

using namespace testing;  // NOLINT: IntExpr operators and builders

Contraction copy_of(ValueId x, IntExprPtr index, IntExprPtr size) {
  Contraction c;
  c.agg = AggOp::kSum;
  c.comb = CombOp::kNone;
  c.out_indices = {idx("i")};
  c.out_sizes = {std::move(size)};
  c.inputs = {access(x, {std::move(index)})};
  return c;
}

Status bind_copy(IntExprPtr index, IntExprPtr size = dim("N")) {
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N"});
  m.output(m.contraction("O", copy_of(x, std::move(index), std::move(size))));
  auto b = bind(m.finish(), {Shape(DType::F32, {4})});
  return b.has_value() ? Status::ok() : b.status();
}

TEST_CASE("errors: index expression divides by zero or by an index") {
  Status z = bind_copy(idx("i") / (dim("N") - 4));
  CHECK(z.code() == StatusCode::kTypeError);
  CHECK(z.message() == "2:1: contraction 'O': index expression 'i / (N - 4)' divides by zero");
  Status v = bind_copy(dim("N") / idx("i"));
  CHECK(v.code() == StatusCode::kTypeError);
  CHECK(v.message() ==
        "2:1: contraction 'O': index expression 'N / i' is not affine: it divides by a "
        "non-constant");
}

TEST_CASE("errors: 64-bit overflow in sizes and index expressions") {
  const int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  Status s = bind_copy(idx("i"), lit(big) * lit(2));
  CHECK(s.code() == StatusCode::kTypeError);
  CHECK(s.message() == fmt::format("2:1: contraction 'O': size expression '{} * 2' overflows "
                                   "64-bit integers",
                                   big));
  Status i = bind_copy(idx("i") * lit(big) * lit(4));
  CHECK(i.code() == StatusCode::kTypeError);
  CHECK(i.message() == fmt::format("2:1: contraction 'O': index expression 'i * {} * 4' "
                                   "overflows 64-bit integers",
                                   big));
}

TEST_CASE("errors: a shape whose byte size overflows 64 bits is the caller's error") {
  // 2^62 floats are 2^64 bytes: the size expression fits, the shape does not.
  Status s = bind_copy(idx("i"), lit(int64_t{1} << 62));
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "2:1: 'O' would have shape f32[4611686018427387904], which is too large: its byte size "
        "overflows 64-bit integers");
  // An input given such a shape (C++ callers; the C API refuses it before binding).
  ProgramMaker m;
  ValueId x = m.input("X", std::vector<std::string>{"N", "M"});
  m.output(m.op(OpKind::Neg, {x}, {}, "Y"));
  auto b = bind(m.finish(), {Shape(DType::F32, {0, int64_t{1} << 62})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kInvalidArgument);
  CHECK(b.status().message() ==
        "1:1: 'X' would have shape f32[0, 4611686018427387904], which is too large: a "
        "dimension's byte stride overflows 64-bit integers");
  CHECK_FALSE(Shape(DType::F32, {int64_t{1} << 60}).size_error().has_value());  // 2^62 bytes
  CHECK(Shape(DType::F32, {int64_t{1} << 61}).size_error().has_value());        // 2^63 bytes
  CHECK_FALSE(Shape(DType::U8, {int64_t{1} << 31, int64_t{1} << 31, 0}).size_error());
  CHECK(Shape(DType::U8, {int64_t{1} << 32, int64_t{1} << 31, 0}).size_error() ==
        "a dimension's byte stride overflows 64-bit integers");
}

TEST_CASE("errors: max and min in index expressions") {
  // max/min of constants folds; of an index it is not affine.
  CHECK(bind_copy(idx("i") + IntExpr::binary(IntOp::kMax, lit(0), dim("N") - 5)).is_ok());
  Status s = bind_copy(IntExpr::binary(IntOp::kMin, idx("i"), lit(2)));
  CHECK(s.code() == StatusCode::kTypeError);
  CHECK(s.message() ==
        "2:1: contraction 'O': index expression 'min(i, 2)' is not affine: a product, max or "
        "min needs a constant operand");
}

TEST_CASE("errors: prng_step with a negative size") {
  ProgramMaker m;
  ValueId s = m.input("S", std::nullopt);
  m.output(m.op(OpKind::PrngStep, {s}, {lit(0) - lit(3)}, "P"));
  auto b = bind(m.finish(), {Shape(DType::U32, {3, 2048})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kTypeError);
  CHECK(b.status().message() == "2:1: prng_step size [-3] is negative in 'prng_step(S, 0 - 3)'");
}

TEST_CASE("errors: a program whose nodes are out of order is an internal error") {
  ProgramMaker m;
  ValueId x = m.input("X", std::nullopt);
  ValueId r = m.op(OpKind::Neg, {x + 5}, {}, "R");
  m.output(r);
  auto b = bind(m.finish(), {Shape(DType::F32, {1})});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.status().code() == StatusCode::kInternal);
  CHECK(b.status().message() == "bind: node 'R' uses value 5 out of order");
  auto none = bind(nullptr, {});
  REQUIRE_FALSE(none.has_value());
  CHECK(none.status().code() == StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace plaidml::ir
