#include "core/poly/affine.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

namespace plaidml::poly {
namespace {

TEST_CASE("Rational normalises sign and common factors") {
  Rational r(6, -4);
  CHECK(r.num == -3);
  CHECK(r.den == 2);
  CHECK(Rational(0, -7) == Rational(0));
  CHECK(Rational(10, 5).is_integer());
  CHECK(Rational(-3, 2).to_string() == "-3/2");
  CHECK(Rational(4).to_string() == "4");
}

TEST_CASE("Rational arithmetic is exact") {
  CHECK(Rational(1, 2) + Rational(1, 3) == Rational(5, 6));
  CHECK(Rational(1, 2) - Rational(3, 4) == Rational(-1, 4));
  CHECK(Rational(2, 3) * Rational(9, 4) == Rational(3, 2));
  CHECK(Rational(2, 3) / Rational(-4, 9) == Rational(-3, 2));
  CHECK(Rational(1, 3) < Rational(1, 2));
  CHECK_FALSE(Rational(1, 2) < Rational(1, 2));
  CHECK(Rational(-1, 2) < Rational(0));
}

TEST_CASE("Rational floor and ceil round toward the right infinity") {
  CHECK(Rational(7, 2).floor() == 3);
  CHECK(Rational(7, 2).ceil() == 4);
  CHECK(Rational(-7, 2).floor() == -4);
  CHECK(Rational(-7, 2).ceil() == -3);
  CHECK(Rational(-4).floor() == -4);
  CHECK(Rational(-4).ceil() == -4);
}

TEST_CASE("Rational overflow and division by zero set the sticky flag") {
  clear_arithmetic_error();
  const int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  Rational ok = Rational(big, 3) * Rational(3, big);  // intermediates exceed 64 bits; result 1
  CHECK_FALSE(arithmetic_error());
  CHECK(ok == Rational(1));
  Rational bad = Rational(big) * Rational(4);
  CHECK(arithmetic_error());
  CHECK(bad == Rational(0));
  clear_arithmetic_error();
  CHECK_FALSE(arithmetic_error());
  (void)(Rational(1) / Rational(0));
  CHECK(arithmetic_error());
  clear_arithmetic_error();
}

TEST_CASE("Affine sums, scales and drops zero terms") {
  Affine i = Affine::var("i"), j = Affine::var("j");
  Affine a = i + j * Rational(2) - Affine(Rational(1));
  CHECK(a.coeff("i") == Rational(1));
  CHECK(a.coeff("j") == Rational(2));
  CHECK(a.constant() == Rational(-1));
  CHECK(a.to_string() == "i + 2*j - 1");
  Affine z = a - i;
  CHECK(z.terms().count("i") == 0);
  CHECK((a - a).is_constant());
  CHECK((a - a).to_string() == "0");
  CHECK((-i).to_string() == "-i");
}

TEST_CASE("Affine with rational coefficients") {
  Affine a = (Affine::var("i") - Affine::var("j") + Affine(Rational(1))) / Rational(2);
  CHECK(a.denominator() == 2);
  CHECK(a.to_string() == "(i - j + 1)/2");
  CHECK(a.eval({{"i", 3}, {"j", 0}}) == Rational(2));
  CHECK(a.eval({{"i", 2}, {"j", 0}}) == Rational(3, 2));
  Affine b = Affine::var("x", Rational(1, 3)) + Affine::var("y", Rational(1, 4));
  CHECK(b.denominator() == 12);
  CHECK(b.to_string() == "(4*x + 3*y)/12");
}

TEST_CASE("RangeConstraint prints inclusive ends") {
  RangeConstraint c{Affine::var("x") + Affine::var("i"), 0, 6};
  CHECK(c.to_string() == "0 <= i + x <= 6");
}

}  // namespace
}  // namespace plaidml::poly
