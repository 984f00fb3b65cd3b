#include "core/poly/affine.h"

#include <fmt/format.h>

#include <cstdlib>
#include <limits>
#include <numeric>

namespace plaidml::poly {
namespace {

using Wide = __int128;

thread_local bool g_arithmetic_error = false;

constexpr Wide kMax = std::numeric_limits<int64_t>::max();
// The most negative int64 is excluded so that negation and abs() can never overflow.
constexpr Wide kMin = -kMax;

Wide wide_abs(Wide v) { return v < 0 ? -v : v; }

Wide wide_gcd(Wide a, Wide b) {
  a = wide_abs(a);
  b = wide_abs(b);
  while (b != 0) {
    Wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Normalises num/den computed in 128 bits and narrows it to a Rational, flagging overflow.
Rational make(Wide num, Wide den) {
  if (den == 0) {
    g_arithmetic_error = true;
    return Rational();
  }
  if (den < 0) {
    num = -num;
    den = -den;
  }
  Wide g = wide_gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  if (num > kMax || num < kMin || den > kMax) {
    g_arithmetic_error = true;
    return Rational();
  }
  Rational r;
  r.num = static_cast<int64_t>(num);
  r.den = static_cast<int64_t>(den);
  return r;
}

int64_t lcm64(int64_t a, int64_t b) {
  Wide l = static_cast<Wide>(a) / std::gcd(a, b) * b;
  if (l > kMax) {
    g_arithmetic_error = true;
    return 1;
  }
  return static_cast<int64_t>(l);
}

// Appends "c*name" with the right sign separator; c is a non-zero integer.
void append_term(std::string* out, int64_t c, const std::string& name) {
  bool first = out->empty();
  if (c < 0) {
    *out += first ? "-" : " - ";
    c = -c;
  } else if (!first) {
    *out += " + ";
  }
  if (name.empty()) {
    *out += std::to_string(c);
  } else if (c == 1) {
    *out += name;
  } else {
    *out += fmt::format("{}*{}", c, name);
  }
}

}  // namespace

bool arithmetic_error() { return g_arithmetic_error; }
void clear_arithmetic_error() { g_arithmetic_error = false; }

Rational::Rational(int64_t n, int64_t d) { *this = make(n, d); }

int64_t Rational::floor() const {
  // C++ division truncates toward zero; step down for negative non-integers.
  int64_t q = num / den;
  return (num % den != 0 && num < 0) ? q - 1 : q;
}

int64_t Rational::ceil() const {
  int64_t q = num / den;
  return (num % den != 0 && num > 0) ? q + 1 : q;
}

std::string Rational::to_string() const {
  if (den == 1) return std::to_string(num);
  return fmt::format("{}/{}", num, den);
}

Rational operator+(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.den + static_cast<Wide>(b.num) * a.den,
              static_cast<Wide>(a.den) * b.den);
}

Rational operator-(Rational a, Rational b) { return a + (-b); }

Rational operator*(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.num, static_cast<Wide>(a.den) * b.den);
}

Rational operator/(Rational a, Rational b) {
  return make(static_cast<Wide>(a.num) * b.den, static_cast<Wide>(a.den) * b.num);
}

bool operator<(Rational a, Rational b) {
  return static_cast<Wide>(a.num) * b.den < static_cast<Wide>(b.num) * a.den;
}

Affine Affine::var(const std::string& name, Rational coeff) {
  Affine a;
  if (coeff.num != 0) a.terms_[name] = coeff;
  return a;
}

Rational Affine::coeff(const std::string& name) const {
  auto it = terms_.find(name);
  return it == terms_.end() ? Rational() : it->second;
}

int64_t Affine::denominator() const {
  int64_t l = constant_.den;
  for (const auto& [name, c] : terms_) l = lcm64(l, c.den);
  return l;
}

Rational Affine::eval(const std::map<std::string, int64_t>& values) const {
  Rational sum = constant_;
  for (const auto& [name, c] : terms_) {
    auto it = values.find(name);
    // A missing variable is a caller bug; count it as zero rather than read out of bounds.
    if (it == values.end()) continue;
    sum = sum + c * Rational(it->second);
  }
  return sum;
}

std::string Affine::to_string() const {
  int64_t den = denominator();
  std::string out;
  for (const auto& [name, c] : terms_) append_term(&out, (c * Rational(den)).num, name);
  Rational k = constant_ * Rational(den);
  if (k.num != 0 || out.empty()) append_term(&out, k.num, "");
  if (den == 1) return out;
  return fmt::format("({})/{}", out, den);
}

Affine Affine::operator+(const Affine& o) const {
  Affine r = *this;
  r.constant_ = r.constant_ + o.constant_;
  for (const auto& [name, c] : o.terms_) {
    Rational sum = r.coeff(name) + c;
    if (sum.num == 0) {
      r.terms_.erase(name);
    } else {
      r.terms_[name] = sum;
    }
  }
  return r;
}

Affine Affine::operator-(const Affine& o) const { return *this + (-o); }

Affine Affine::operator*(Rational f) const {
  Affine r;
  r.constant_ = constant_ * f;
  if (f.num == 0) return r;
  for (const auto& [name, c] : terms_) r.terms_[name] = c * f;
  return r;
}

Affine Affine::operator/(Rational f) const {
  if (f.num == 0) {
    g_arithmetic_error = true;
    return Affine();
  }
  return *this * (Rational(1) / f);
}

std::string RangeConstraint::to_string() const {
  return fmt::format("{} <= {} <= {}", lo, expr.to_string(), hi);
}

}  // namespace plaidml::poly
