#include "core/poly/bounds.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace plaidml::poly {
namespace {

Affine v(const std::string& name) { return Affine::var(name); }
Affine k(int64_t c) { return Affine(Rational(c)); }
// 0 <= expr < n, the form every Tile access and user constraint takes.
RangeConstraint below(Affine expr, int64_t n) { return RangeConstraint{std::move(expr), 0, n - 1}; }

void check_range(const BoundsResult& r, size_t pos, const std::string& name, int64_t lo,
                 int64_t hi) {
  REQUIRE(r.indices.size() > pos);
  CHECK(r.indices[pos] == name);
  CHECK(r.ranges[pos].lo == lo);
  CHECK(r.ranges[pos].hi == hi);
}

// PlaidML lang_test "BoundsInference basic": every constraint is implied by the box.
TEST_CASE("bounds: box implies every constraint") {
  auto r =
      infer_bounds({"i", "x"}, {below(v("x"), 5), below(v("x") + v("i"), 7), below(v("i"), 3)});
  REQUIRE(r.has_value());
  CHECK_FALSE(r->empty);
  check_range(*r, 0, "i", 0, 2);
  check_range(*r, 1, "x", 0, 4);
  CHECK(r->residual.empty());
}

// PlaidML lang_test "BoundsInference residual": x + i stays as a guard.
TEST_CASE("bounds: residual constraint kept") {
  auto r = infer_bounds({"i", "x"},
                        {below(v("x"), 7), below(v("x") + v("i"), 7), below(v("i") + k(1), 3)});
  REQUIRE(r.has_value());
  check_range(*r, 0, "i", -1, 1);
  check_range(*r, 1, "x", 0, 6);
  REQUIRE(r->residual.size() == 1);
  CHECK(r->residual[0].expr == v("i") + v("x"));
  CHECK(r->residual[0].lo == 0);
  CHECK(r->residual[0].hi == 6);
}

// O[i : 5] = +(I[(i - j + 1)/2] * K[j]) with I and K of size 3.
TEST_CASE("bounds: rational index access") {
  Affine half = (v("i") - v("j") + k(1)) / Rational(2);
  auto r = infer_bounds({"i", "j"}, {below(v("i"), 5), below(half, 3), below(v("j"), 3)}, {half});
  REQUIRE(r.has_value());
  check_range(*r, 0, "i", 0, 4);
  check_range(*r, 1, "j", 0, 2);
  // Integral points of the box have i - j + 1 in {0, 2, 4}: the access is always in range.
  CHECK(r->residual.empty());
}

TEST_CASE("bounds: integrality tightens the range exactly") {
  // (x + 1)/3 integral means x = 2 (mod 3): with 0 <= x <= 6 only x = 2 and x = 5 remain.
  Affine third = (v("x") + k(1)) / Rational(3);
  auto with = infer_bounds({"x"}, {below(v("x"), 7), below(third, 3)}, {third});
  REQUIRE(with.has_value());
  check_range(*with, 0, "x", 2, 5);
  auto without = infer_bounds({"x"}, {below(v("x"), 7), below(third, 3)});
  REQUIRE(without.has_value());
  check_range(*without, 0, "x", 0, 5);
}

TEST_CASE("bounds: negative coefficients and offsets") {
  // Cumulative sum S[i : 4] = +(X[k]), i - k < 4 with X of size 4.
  auto r =
      infer_bounds({"i", "k"}, {below(v("i"), 4), below(v("k"), 4), below(v("i") - v("k"), 4)});
  REQUIRE(r.has_value());
  check_range(*r, 0, "i", 0, 3);
  check_range(*r, 1, "k", 0, 3);
  REQUIRE(r->residual.size() == 1);
  CHECK(r->residual[0].expr == v("i") - v("k"));
}

TEST_CASE("bounds: empty set") {
  auto r = infer_bounds({"x"}, {below(v("x"), 4), RangeConstraint{v("x"), 5, 9}});
  REQUIRE(r.has_value());
  CHECK(r->empty);
  REQUIRE(r->ranges.size() == 1);
  CHECK(r->ranges[0].extent() == 0);
}

TEST_CASE("bounds: unbounded index is a type error naming it") {
  auto r = infer_bounds({"i", "k"}, {below(v("i"), 4)});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kTypeError);
  CHECK(r.status().message() ==
        "index 'k' is unbounded: it appears in no tensor access or constraint that limits it");
  // Bounded on one side only is still unbounded.
  auto half = infer_bounds({"i"}, {RangeConstraint{v("i"), 0, 0}, below(v("i") - v("i"), 1)});
  REQUIRE(half.has_value());
}

TEST_CASE("bounds: index names that are isl keywords") {
  auto r = infer_bounds({"and", "exists"}, {below(v("and"), 2), below(v("exists") + v("and"), 3)});
  REQUIRE(r.has_value());
  check_range(*r, 0, "and", 0, 1);
  check_range(*r, 1, "exists", -1, 2);
}

TEST_CASE("bounds: no indices (scalar contraction of a constant access)") {
  auto r = infer_bounds({}, {RangeConstraint{k(2), 0, 3}});
  REQUIRE(r.has_value());
  CHECK_FALSE(r->empty);
  CHECK(r->ranges.empty());
  auto e = infer_bounds({}, {RangeConstraint{k(5), 0, 3}});
  REQUIRE(e.has_value());
  CHECK(e->empty);
}

TEST_CASE("bounds: a constraint on an unknown variable is an internal error") {
  auto r = infer_bounds({"i"}, {below(v("i") + v("q"), 3)});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInternal);
  CHECK(r.status().message().find("'q'") != std::string::npos);
}

}  // namespace
}  // namespace plaidml::poly
