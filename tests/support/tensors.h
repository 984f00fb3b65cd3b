// Test helpers shared by every suite (header-only): build HostTensors from literal values,
// random HostTensors of any dtype from a seed, read elements back, and compare two tensors
// with per-dtype tolerances and a readable report of the first mismatch.
//
//   HostTensor a = plaidml::testing::make_tensor(DType::F32, {2, 2}, {1, 2, 3, 4});
//   HostTensor r = plaidml::testing::random_tensor(Shape(DType::F16, {8, 8}), /*seed=*/7);
//   CHECK_MESSAGE(plaidml::testing::tensors_match(actual, expected), report);  // or:
//   std::string report = plaidml::testing::compare_tensors(actual, expected);
//   CHECK_MESSAGE(report.empty(), report);
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/types/half.h"
#include "core/types/tensor.h"

namespace plaidml::testing {

// One element, read exactly: floats as double, signed integers as int64, unsigned and bool as
// uint64 (only the member matching the dtype's kind is meaningful).
struct Element {
  double f = 0;
  int64_t i = 0;
  uint64_t u = 0;
};

inline Element read_element(const HostTensor& t, int64_t index) {
  const uint8_t* p = t.bytes.data() + index * dtype_size(t.shape.dtype);
  Element e;
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.shape.dtype) {
    case DType::Bool:
      e.u = get(uint8_t{}) != 0;
      break;
    case DType::I8:
      e.i = get(int8_t{});
      break;
    case DType::I16:
      e.i = get(int16_t{});
      break;
    case DType::I32:
      e.i = get(int32_t{});
      break;
    case DType::I64:
      e.i = get(int64_t{});
      break;
    case DType::U8:
      e.u = get(uint8_t{});
      break;
    case DType::U16:
      e.u = get(uint16_t{});
      break;
    case DType::U32:
      e.u = get(uint32_t{});
      break;
    case DType::U64:
      e.u = get(uint64_t{});
      break;
    case DType::F16:
      e.f = f16_to_double(get(uint16_t{}));
      break;
    case DType::BF16:
      e.f = bf16_to_double(get(uint16_t{}));
      break;
    case DType::F32:
      e.f = get(float{});
      break;
    case DType::F64:
      e.f = get(double{});
      break;
  }
  return e;
}

// Any element as a double (exact for floats and integers up to 2^53).
inline double element_as_double(const HostTensor& t, int64_t index) {
  Element e = read_element(t, index);
  if (dtype_is_float(t.shape.dtype)) return e.f;
  return dtype_is_signed(t.shape.dtype) ? static_cast<double>(e.i) : static_cast<double>(e.u);
}

inline std::vector<double> to_doubles(const HostTensor& t) {
  std::vector<double> out(static_cast<size_t>(t.elements()));
  for (int64_t i = 0; i < t.elements(); ++i) out[i] = element_as_double(t, i);
  return out;
}

// v as an unsigned integer of type U: a negative value wraps modulo 2^bits (-1 -> all ones), as
// a two's complement bit pattern; a non-negative one must fit. Converting a negative double
// straight to an unsigned type is undefined behaviour (UBSan's float-cast-overflow).
template <typename U>
U to_unsigned_bits(double v) {
  return v < 0 ? static_cast<U>(static_cast<int64_t>(v)) : static_cast<U>(v);
}

// Writes a double into element `index`: floats rounded to nearest even, integers truncated
// (C cast: the value must fit; unsigned dtypes take negative values as their bit pattern),
// bool = value != 0.
inline void write_element(HostTensor& t, int64_t index, double v) {
  uint8_t* p = t.bytes.data() + index * dtype_size(t.shape.dtype);
  auto put = [p](auto x) { std::memcpy(p, &x, sizeof(x)); };
  switch (t.shape.dtype) {
    case DType::Bool:
      put(static_cast<uint8_t>(v != 0));
      break;
    case DType::I8:
      put(static_cast<int8_t>(v));
      break;
    case DType::I16:
      put(static_cast<int16_t>(v));
      break;
    case DType::I32:
      put(static_cast<int32_t>(v));
      break;
    case DType::I64:
      put(static_cast<int64_t>(v));
      break;
    case DType::U8:
      put(to_unsigned_bits<uint8_t>(v));
      break;
    case DType::U16:
      put(to_unsigned_bits<uint16_t>(v));
      break;
    case DType::U32:
      put(to_unsigned_bits<uint32_t>(v));
      break;
    case DType::U64:
      put(to_unsigned_bits<uint64_t>(v));
      break;
    case DType::F16:
      put(f16_from_double(v));
      break;
    case DType::BF16:
      put(bf16_from_double(v));
      break;
    case DType::F32:
      put(static_cast<float>(v));
      break;
    case DType::F64:
      put(v);
      break;
  }
}

// A tensor with the given values (row-major; their count must equal the element count).
inline HostTensor make_tensor(DType dtype, std::vector<int64_t> dims, std::vector<double> values) {
  HostTensor t(Shape(dtype, std::move(dims)));
  for (int64_t i = 0; i < t.elements() && i < static_cast<int64_t>(values.size()); ++i) {
    write_element(t, i, values[i]);
  }
  return t;
}

// Value ranges of random_tensor: floats uniform in [lo, hi), integers uniform in
// [int_lo, int_hi] (clipped to the dtype; unsigned dtypes start at max(int_lo, 0)), bool 0/1.
// The small integer default keeps sums of a few hundred terms away from overflow.
struct RandomOptions {
  double lo = -1.0;
  double hi = 1.0;
  int64_t int_lo = -8;
  int64_t int_hi = 8;
};

// splitmix64: a tiny, well-mixed generator whose sequence is the same on every platform
// (std:: distributions are not).
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline HostTensor random_tensor(const Shape& shape, uint64_t seed, RandomOptions o = {}) {
  HostTensor t(shape);
  uint64_t state = seed;
  DType d = shape.dtype;
  int64_t lo = dtype_is_signed(d) ? o.int_lo : std::max<int64_t>(o.int_lo, 0);
  int64_t hi = o.int_hi;
  if (dtype_is_integer(d) && dtype_bits(d) < 64) {
    int64_t max = dtype_is_signed(d) ? (int64_t{1} << (dtype_bits(d) - 1)) - 1
                                     : (int64_t{1} << dtype_bits(d)) - 1;
    hi = std::min(hi, max);
    lo = std::max(lo, dtype_is_signed(d) ? -max - 1 : int64_t{0});
  }
  for (int64_t i = 0; i < t.elements(); ++i) {
    uint64_t r = splitmix64(state);
    double v;
    if (dtype_is_float(d)) {
      v = o.lo + (o.hi - o.lo) * static_cast<double>(r >> 11) * 0x1.0p-53;
    } else if (d == DType::Bool) {
      v = static_cast<double>(r >> 63);
    } else {
      v = static_cast<double>(lo + static_cast<int64_t>(r % static_cast<uint64_t>(hi - lo + 1)));
    }
    write_element(t, i, v);
  }
  return t;
}

// Writes +inf, NaN and -inf at the first, middle and last elements of a float tensor.
inline void plant_nonfinite(HostTensor& t) {
  const int64_t n = t.elements();
  write_element(t, 0, std::numeric_limits<double>::infinity());
  write_element(t, n / 2, std::numeric_limits<double>::quiet_NaN());
  write_element(t, n - 1, -std::numeric_limits<double>::infinity());
}

// |actual - expected| <= atol + rtol * |expected| for floats; integers and bool are exact.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// Loose enough for a different (but sane) order of float accumulation over a few hundred terms,
// and for f16/bf16 results rounded from an f32 accumulator.
inline Tolerance default_tolerance(DType d) {
  switch (d) {
    case DType::F16:
      return {2e-3, 2e-3};
    case DType::BF16:
      return {1.6e-2, 1.6e-2};
    case DType::F32:
      return {1e-5, 1e-6};
    case DType::F64:
      return {1e-12, 1e-14};
    case DType::Bool:
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      return {0, 0};
  }
  return {0, 0};
}

inline std::string index_text(const std::vector<int64_t>& dims, int64_t flat) {
  std::vector<int64_t> coord(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    coord[k] = dims[k] ? flat % dims[k] : 0;
    flat = dims[k] ? flat / dims[k] : 0;
  }
  return fmt::format("[{}]", fmt::join(coord, ", "));
}

inline bool elements_match(const HostTensor& a, const HostTensor& e, int64_t i, Tolerance tol) {
  DType d = e.shape.dtype;
  Element x = read_element(a, i), y = read_element(e, i);
  if (!dtype_is_float(d)) return dtype_is_signed(d) ? x.i == y.i : x.u == y.u;
  if (std::isnan(x.f) || std::isnan(y.f)) return std::isnan(x.f) && std::isnan(y.f);
  if (std::isinf(x.f) || std::isinf(y.f)) return x.f == y.f;
  return std::fabs(x.f - y.f) <= tol.atol + tol.rtol * std::fabs(y.f);
}

// "" when `actual` matches `expected` (same shape, every element within tolerance), else a
// report naming the first differing index, both values, and how many elements differ.
inline std::string compare_tensors(const HostTensor& actual, const HostTensor& expected,
                                   std::optional<Tolerance> tolerance = std::nullopt) {
  if (actual.shape != expected.shape) {
    return fmt::format("shape mismatch: actual {}, expected {}", actual.shape.to_string(),
                       expected.shape.to_string());
  }
  if (actual.bytes.size() != expected.bytes.size()) {
    return fmt::format("byte size mismatch: actual {}, expected {}", actual.bytes.size(),
                       expected.bytes.size());
  }
  Tolerance tol = tolerance.value_or(default_tolerance(expected.shape.dtype));
  int64_t first = -1, count = 0;
  for (int64_t i = 0; i < expected.elements(); ++i) {
    if (elements_match(actual, expected, i, tol)) continue;
    if (first < 0) first = i;
    ++count;
  }
  if (first < 0) return "";
  return fmt::format(
      "{} of {} elements differ ({}, rtol {}, atol {}); first at index {} (flat {}): actual {}, "
      "expected {}",
      count, expected.elements(), expected.shape.to_string(), tol.rtol, tol.atol,
      index_text(expected.shape.dims, first), first, element_as_double(actual, first),
      element_as_double(expected, first));
}

}  // namespace plaidml::testing
