// Exact affine polynomials with rational coefficients over named index variables.
// Tile index expressions, once dims are known, become these (docs/tile.md section 2).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace plaidml::poly {

// Rational and Affine arithmetic is exact in 64 bits (intermediates in 128). A result that does
// not fit, or a division by zero, cannot be reported through an operator: it gives 0 and sets a
// thread-local sticky flag. Code that does arithmetic on user input clears the flag first and
// checks it afterwards, so an overflow becomes a user error, never a silently wrong index.
bool arithmetic_error();
void clear_arithmetic_error();

// Always normalised: den > 0, gcd(|num|, den) == 1.
struct Rational {
  int64_t num = 0;
  int64_t den = 1;

  Rational() = default;
  Rational(int64_t n) : num(n), den(1) {}  // NOLINT(google-explicit-constructor)
  Rational(int64_t n, int64_t d);          // normalises; d != 0
  bool is_integer() const { return den == 1; }
  int64_t floor() const;
  int64_t ceil() const;
  std::string to_string() const;
  friend Rational operator+(Rational a, Rational b);
  friend Rational operator-(Rational a, Rational b);
  friend Rational operator*(Rational a, Rational b);
  friend Rational operator/(Rational a, Rational b);
  friend Rational operator-(Rational a) { return Rational(-a.num, a.den); }
  friend bool operator==(Rational a, Rational b) { return a.num == b.num && a.den == b.den; }
  friend bool operator<(Rational a, Rational b);
};

// sum(terms[v] * v) + constant. Zero coefficients are never stored.
class Affine {
 public:
  Affine() = default;
  Affine(Rational constant) : constant_(constant) {}  // NOLINT(google-explicit-constructor)
  static Affine var(const std::string& name, Rational coeff = 1);

  const std::map<std::string, Rational>& terms() const { return terms_; }
  Rational constant() const { return constant_; }
  Rational coeff(const std::string& name) const;
  bool is_constant() const { return terms_.empty(); }
  // Least common multiple of all denominators (1 when every coefficient is an integer).
  int64_t denominator() const;
  // Value at an integer point; values maps every variable in terms() to its value.
  Rational eval(const std::map<std::string, int64_t>& values) const;
  std::string to_string() const;  // "i + 2*j - 1", "(i - j + 1)/2"

  Affine operator+(const Affine& o) const;
  Affine operator-(const Affine& o) const;
  Affine operator*(Rational r) const;
  Affine operator/(Rational r) const;
  Affine operator-() const { return *this * Rational(-1); }
  bool operator==(const Affine& o) const = default;

 private:
  std::map<std::string, Rational> terms_;
  Rational constant_;
};

// lo <= expr <= hi (inclusive, both ends integers).
struct RangeConstraint {
  Affine expr;
  int64_t lo = 0;
  int64_t hi = 0;
  std::string to_string() const;
};

}  // namespace plaidml::poly
