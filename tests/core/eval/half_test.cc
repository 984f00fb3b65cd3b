// f16 / bf16 conversions (core/types/half.h): known bit patterns, ties to even, overflow,
// subnormals, NaN, and a round trip of every 16-bit pattern.
#include "core/types/half.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace plaidml {
namespace {

TEST_CASE("f16: exact values and limits") {
  CHECK(f16_from_double(1.0) == 0x3C00);
  CHECK(f16_from_double(-2.0) == 0xC000);
  CHECK(f16_from_double(0.0) == 0x0000);
  CHECK(f16_from_double(-0.0) == 0x8000);
  CHECK(f16_from_double(65504.0) == 0x7BFF);               // largest finite
  CHECK(f16_from_double(std::ldexp(1.0, -14)) == 0x0400);  // smallest normal
  CHECK(f16_from_double(std::ldexp(1.0, -24)) == 0x0001);  // smallest subnormal
  CHECK(f16_from_double(INFINITY) == 0x7C00);
  CHECK(f16_from_double(-INFINITY) == 0xFC00);
  CHECK(f16_to_double(0x3555) == 0x1.554p-2);  // 0.333251953125
  CHECK(f16_to_double(0x0001) == std::ldexp(1.0, -24));
  CHECK(f16_to_double(0x7BFF) == 65504.0);
  CHECK(std::isnan(f16_to_double(0x7E00)));
  CHECK(std::isnan(f16_to_double(f16_from_double(NAN))));
  CHECK(f16_to_float(0xC000) == -2.0f);
}

TEST_CASE("f16: round to nearest, ties to even") {
  CHECK(f16_from_double(1.0 + std::ldexp(1.0, -11)) == 0x3C00);         // tie -> even (down)
  CHECK(f16_from_double(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);     // tie -> even (up)
  CHECK(f16_from_double(1.0 + std::ldexp(1.0, -11) + 1e-9) == 0x3C01);  // above the tie
  CHECK(f16_from_double(65519.0) == 0x7BFF);
  CHECK(f16_from_double(65520.0) == 0x7C00);  // the tie above the largest finite overflows
  CHECK(f16_from_double(std::ldexp(1.0, -25)) == 0x0000);      // tie between 0 and min sub
  CHECK(f16_from_double(3 * std::ldexp(1.0, -26)) == 0x0001);  // 0.75 ulp rounds up
  CHECK(f16_from_double(std::ldexp(1023.5, -24)) == 0x0400);   // rounds up into the normals
  CHECK(f16_from_double(2049.0) == f16_from_double(2048.0));
  CHECK(f16_from_double(2051.0) == f16_from_double(2052.0));
  // Straight from double: no double rounding through float.
  double just_above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(f16_from_double(just_above_tie) == 0x3C01);
}

TEST_CASE("bf16: exact values, ties to even and overflow") {
  CHECK(bf16_from_double(1.0) == 0x3F80);
  CHECK(bf16_from_double(-1.0) == 0xBF80);
  CHECK(bf16_from_double(1.0 + std::ldexp(1.0, -8)) == 0x3F80);  // tie -> even
  CHECK(bf16_from_double(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);
  CHECK(bf16_from_double(1.703125) == 0x3FDA);
  CHECK(bf16_to_double(0x7F7F) == 0x1.FEp127);                           // largest finite
  CHECK(bf16_from_double(std::numeric_limits<float>::max()) == 0x7F80);  // rounds to inf
  CHECK(bf16_from_double(std::ldexp(1.0, -133)) == 0x0001);              // smallest subnormal
  CHECK(std::isnan(bf16_to_double(bf16_from_double(NAN))));
  CHECK(bf16_from_float(3.0f) == 0x4040);
  CHECK(bf16_to_float(0x4040) == 3.0f);
}

TEST_CASE("every 16-bit pattern round-trips (NaNs stay NaN)") {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    uint16_t b = static_cast<uint16_t>(bits);
    double h = f16_to_double(b), g = bf16_to_double(b);
    if (std::isnan(h)) {
      CHECK(std::isnan(f16_to_double(f16_from_double(h))));
    } else if (f16_from_double(h) != b) {
      FAIL_CHECK("f16 pattern " << bits << " does not round-trip");
    }
    if (std::isnan(g)) {
      CHECK(std::isnan(bf16_to_double(bf16_from_double(g))));
    } else if (bf16_from_double(g) != b) {
      FAIL_CHECK("bf16 pattern " << bits << " does not round-trip");
    }
    // bf16 is the top half of a float.
    if (!std::isnan(g)) {
      uint32_t fbits = bits << 16;
      float f;
      std::memcpy(&f, &fbits, 4);
      if (f != bf16_to_float(b)) FAIL_CHECK("bf16 pattern " << bits << " decodes wrongly");
    }
  }
}

}  // namespace
}  // namespace plaidml
