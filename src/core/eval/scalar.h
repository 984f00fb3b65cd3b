// Scalars of the reference interpreter. Every element is held in the widest type of its
// dtype's domain: floats as double, signed integers as int64, unsigned integers and bool as
// uint64. A value stored for dtype D is always already representable in D (rounded to f32/f16/
// bf16, wrapped to the integer width, bool 0/1), so converting it back to bytes is exact.
#pragma once

#include <cstdint>

#include "core/types/dtype.h"

namespace plaidml::eval {

enum class Domain { kFloat, kSigned, kUnsigned };

Domain domain_of(DType t);

union Value {
  double f;
  int64_t i;
  uint64_t u;
};

inline Value from_double(double v) {
  Value x;
  x.f = v;
  return x;
}
inline Value from_int(int64_t v) {
  Value x;
  x.i = v;
  return x;
}
inline Value from_uint(uint64_t v) {
  Value x;
  x.u = v;
  return x;
}

// Makes an element of domain_of(to) representable in `to`: floats are rounded to nearest even,
// integers wrap modulo 2^bits (two's complement), bool becomes v != 0.
Value narrow(Value v, DType to);

// Converts an element held for dtype `from` into one held for dtype `to`.
//  - float -> integer truncates toward zero and saturates at the target's limits; NaN gives 0
//    (the same answer as LLVM's fptosi.sat / fptoui.sat, so devices can match it exactly).
//  - integer -> float rounds to nearest even.
//  - anything -> bool is v != 0 (NaN is true, as in C).
Value convert(Value v, DType from, DType to);

// A value as a double / as a truth value, whatever its domain.
double to_double(Value v, DType from);
bool is_true(Value v, DType from);

// Identity of an aggregation in dtype t: the lowest (`lowest`) or highest value; NaN-free.
Value lowest_value(DType t);
Value highest_value(DType t);

// Element access on raw HostTensor bytes (dtype t, element index i).
Value load(const uint8_t* data, DType t, int64_t i);
void store(uint8_t* data, DType t, int64_t i, Value v);

}  // namespace plaidml::eval
