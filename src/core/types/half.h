// f16 (IEEE binary16) and bf16 (bfloat16) <-> float/double conversion.
// Narrowing rounds to nearest, ties to even (the IEEE default and what hardware conversions do);
// overflow gives infinity, NaN stays NaN (quiet, sign kept). Converting straight from double
// avoids the double rounding of double -> float -> half. Used by the interpreter, the CLI and
// tests; the bit patterns are what HostTensor stores for these dtypes.
#pragma once

#include <cstdint>

namespace plaidml {

uint16_t f16_from_double(double value);
uint16_t f16_from_float(float value);
double f16_to_double(uint16_t bits);
float f16_to_float(uint16_t bits);  // exact: every f16 is a float

uint16_t bf16_from_double(double value);
uint16_t bf16_from_float(float value);
double bf16_to_double(uint16_t bits);
float bf16_to_float(uint16_t bits);  // exact

// Rounds a double to the nearest value representable in f16 / bf16 (ties to even).
inline double round_to_f16(double value) { return f16_to_double(f16_from_double(value)); }
inline double round_to_bf16(double value) { return bf16_to_double(bf16_from_double(value)); }

}  // namespace plaidml
