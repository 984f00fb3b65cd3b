#include "core/types/half.h"

#include <cmath>
#include <cstring>

namespace plaidml {
namespace {

// A binary floating-point format narrower than double: 1 sign bit, exp_bits, man_bits.
struct SmallFormat {
  int exp_bits;
  int man_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int max_exp_field() const { return (1 << exp_bits) - 1; }
};

constexpr SmallFormat kF16{5, 10};
constexpr SmallFormat kBF16{8, 7};

// x >= 0 and its integer part fits comfortably in a double: round half to even without relying
// on the floating-point environment's rounding mode.
double round_half_even(double x) {
  double r = std::floor(x);
  double diff = x - r;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

uint16_t encode(double value, SmallFormat f) {
  uint32_t sign = std::signbit(value) ? 1u << (f.exp_bits + f.man_bits) : 0u;
  uint32_t exp_mask = static_cast<uint32_t>(f.max_exp_field()) << f.man_bits;
  if (std::isnan(value)) return static_cast<uint16_t>(sign | exp_mask | (1u << (f.man_bits - 1)));
  double a = std::fabs(value);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | exp_mask);
  int min_exp = 1 - f.bias();  // exponent of the smallest normal number
  if (a < std::ldexp(1.0, min_exp)) {
    // Subnormal range: a multiple of 2^(min_exp - man_bits). A result of 2^man_bits is the
    // smallest normal, whose encoding is exactly that integer.
    double q = round_half_even(std::ldexp(a, f.man_bits - min_exp));
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(q));
  }
  int e = std::ilogb(a);                                      // a = m * 2^e, 1 <= m < 2
  double q = round_half_even(std::ldexp(a, f.man_bits - e));  // in [2^man, 2^(man+1)]
  if (q >= std::ldexp(1.0, f.man_bits + 1)) {
    q = std::ldexp(1.0, f.man_bits);
    ++e;
  }
  int field = e + f.bias();
  if (field >= f.max_exp_field()) return static_cast<uint16_t>(sign | exp_mask);  // overflow
  uint32_t man = static_cast<uint32_t>(q) - (1u << f.man_bits);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(field) << f.man_bits) | man);
}

double decode(uint16_t bits, SmallFormat f) {
  bool negative = (bits >> (f.exp_bits + f.man_bits)) & 1;
  int field = (bits >> f.man_bits) & f.max_exp_field();
  uint32_t man = bits & ((1u << f.man_bits) - 1);
  double v;
  if (field == f.max_exp_field()) {
    v = man == 0 ? INFINITY : NAN;
  } else if (field == 0) {
    v = std::ldexp(static_cast<double>(man), 1 - f.bias() - f.man_bits);
  } else {
    v = std::ldexp(static_cast<double>(man | (1u << f.man_bits)), field - f.bias() - f.man_bits);
  }
  return negative ? -v : v;
}

}  // namespace

uint16_t f16_from_double(double value) { return encode(value, kF16); }
uint16_t f16_from_float(float value) { return encode(value, kF16); }
double f16_to_double(uint16_t bits) { return decode(bits, kF16); }
float f16_to_float(uint16_t bits) { return static_cast<float>(decode(bits, kF16)); }

uint16_t bf16_from_double(double value) { return encode(value, kBF16); }
uint16_t bf16_from_float(float value) { return encode(value, kBF16); }
double bf16_to_double(uint16_t bits) { return decode(bits, kBF16); }
float bf16_to_float(uint16_t bits) { return static_cast<float>(decode(bits, kBF16)); }

}  // namespace plaidml
