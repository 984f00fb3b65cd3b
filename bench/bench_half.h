// IEEE binary16 bit patterns for the half-precision benchmark cases. The benchmarks reach the
// library only through its C ABI, so they convert on their own: to f16 rounding to nearest,
// ties to even (as the library and the hardware do), back exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace plaidml_bench {

inline uint16_t half_bits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mantissa = x & 0x7fffffu;
  const int exponent = int((x >> 23) & 0xffu);
  if (exponent == 255) return uint16_t(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int e = exponent - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00u);
  int shift = 13;
  uint32_t base = uint32_t(e) << 10;
  if (e <= 0) {  // subnormal (or zero) in f16
    if (e < -10) return uint16_t(sign);
    mantissa |= 0x800000u;
    shift = 14 - e;
    base = 0;
  }
  uint32_t half = base | (mantissa >> shift);
  const uint32_t rest = mantissa & ((1u << shift) - 1), middle = 1u << (shift - 1);
  if (rest > middle || (rest == middle && (half & 1u))) ++half;  // a carry is still right
  return uint16_t(sign | half);
}

inline float half_value(uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ffu;
  float v = 0;
  if (exponent == 0) {
    v = std::ldexp(float(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = std::ldexp(float(mantissa | 0x400u), exponent - 25);
  }
  return negative ? -v : v;
}

}  // namespace plaidml_bench
