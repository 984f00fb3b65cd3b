#include "core/eval/scalar.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/types/half.h"

namespace plaidml::eval {
namespace {

template <typename T>
T read_as(const uint8_t* data, int64_t i) {
  T v;
  std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void write_as(uint8_t* data, int64_t i, T v) {
  std::memcpy(data + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// Truncates toward zero and clamps into [lo, hi]; NaN gives 0. lo/hi are exact in double for
// every limit involved except the 64-bit maxima, which the >= comparisons handle.
int64_t float_to_signed(double x, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  double t = std::trunc(x);
  if (t <= static_cast<double>(lo)) return lo;
  if (t >= static_cast<double>(hi)) return hi;  // 2^63 for i64: out of range, clamps
  return static_cast<int64_t>(t);
}

uint64_t float_to_unsigned(double x, uint64_t hi) {
  if (std::isnan(x) || x <= 0.0) return 0;
  double t = std::trunc(x);
  if (t >= static_cast<double>(hi)) return hi;  // 2^64 for u64: out of range, clamps
  return static_cast<uint64_t>(t);
}

Value float_to_dtype(double x, DType to) {
  switch (to) {
    case DType::Bool:
      return from_uint(x != 0.0 || std::isnan(x) ? 1 : 0);
    case DType::I8:
      return from_int(float_to_signed(x, INT8_MIN, INT8_MAX));
    case DType::I16:
      return from_int(float_to_signed(x, INT16_MIN, INT16_MAX));
    case DType::I32:
      return from_int(float_to_signed(x, INT32_MIN, INT32_MAX));
    case DType::I64:
      return from_int(float_to_signed(x, INT64_MIN, INT64_MAX));
    case DType::U8:
      return from_uint(float_to_unsigned(x, UINT8_MAX));
    case DType::U16:
      return from_uint(float_to_unsigned(x, UINT16_MAX));
    case DType::U32:
      return from_uint(float_to_unsigned(x, UINT32_MAX));
    case DType::U64:
      return from_uint(float_to_unsigned(x, UINT64_MAX));
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
      return narrow(from_double(x), to);
  }
  return from_uint(0);
}

// Integer (as two's complement bits in 64) to dtype `to`; `is_signed` says how to read the bits.
Value bits_to_dtype(uint64_t bits, bool is_signed, DType to) {
  if (dtype_is_float(to)) {
    if (to == DType::F32) {
      // Direct int -> float conversion: one rounding, not two (via double).
      float f =
          is_signed ? static_cast<float>(static_cast<int64_t>(bits)) : static_cast<float>(bits);
      return from_double(f);
    }
    double d =
        is_signed ? static_cast<double>(static_cast<int64_t>(bits)) : static_cast<double>(bits);
    return narrow(from_double(d), to);
  }
  if (to == DType::Bool) return from_uint(bits != 0 ? 1 : 0);
  return narrow(from_uint(bits), to);  // the union makes .i and .u share the same bits
}

}  // namespace

Domain domain_of(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      return Domain::kUnsigned;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
      return Domain::kSigned;
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
      return Domain::kFloat;
  }
  return Domain::kFloat;
}

Value narrow(Value v, DType to) {
  switch (to) {
    case DType::Bool:
      return from_uint(v.u != 0 ? 1 : 0);
    case DType::I8:
      return from_int(static_cast<int8_t>(v.u));
    case DType::I16:
      return from_int(static_cast<int16_t>(v.u));
    case DType::I32:
      return from_int(static_cast<int32_t>(v.u));
    case DType::I64:
      return v;
    case DType::U8:
      return from_uint(static_cast<uint8_t>(v.u));
    case DType::U16:
      return from_uint(static_cast<uint16_t>(v.u));
    case DType::U32:
      return from_uint(static_cast<uint32_t>(v.u));
    case DType::U64:
      return v;
    case DType::F16:
      return from_double(round_to_f16(v.f));
    case DType::BF16:
      return from_double(round_to_bf16(v.f));
    case DType::F32:
      return from_double(static_cast<float>(v.f));
    case DType::F64:
      return v;
  }
  return v;
}

Value convert(Value v, DType from, DType to) {
  switch (domain_of(from)) {
    case Domain::kFloat:
      return float_to_dtype(v.f, to);
    case Domain::kSigned:
      return bits_to_dtype(v.u, true, to);
    case Domain::kUnsigned:
      return bits_to_dtype(v.u, false, to);
  }
  return v;
}

double to_double(Value v, DType from) {
  switch (domain_of(from)) {
    case Domain::kFloat:
      return v.f;
    case Domain::kSigned:
      return static_cast<double>(v.i);
    case Domain::kUnsigned:
      return static_cast<double>(v.u);
  }
  return 0.0;
}

bool is_true(Value v, DType from) {
  if (domain_of(from) == Domain::kFloat) return v.f != 0.0 || std::isnan(v.f);
  return v.u != 0;
}

Value lowest_value(DType t) {
  switch (t) {
    case DType::Bool:
      return from_uint(0);
    case DType::I8:
      return from_int(INT8_MIN);
    case DType::I16:
      return from_int(INT16_MIN);
    case DType::I32:
      return from_int(INT32_MIN);
    case DType::I64:
      return from_int(INT64_MIN);
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      return from_uint(0);
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
      return from_double(-std::numeric_limits<double>::infinity());
  }
  return from_uint(0);
}

Value highest_value(DType t) {
  switch (t) {
    case DType::Bool:
      return from_uint(1);
    case DType::I8:
      return from_int(INT8_MAX);
    case DType::I16:
      return from_int(INT16_MAX);
    case DType::I32:
      return from_int(INT32_MAX);
    case DType::I64:
      return from_int(INT64_MAX);
    case DType::U8:
      return from_uint(UINT8_MAX);
    case DType::U16:
      return from_uint(UINT16_MAX);
    case DType::U32:
      return from_uint(UINT32_MAX);
    case DType::U64:
      return from_uint(UINT64_MAX);
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
      return from_double(std::numeric_limits<double>::infinity());
  }
  return from_uint(0);
}

Value load(const uint8_t* data, DType t, int64_t i) {
  switch (t) {
    case DType::Bool:
      return from_uint(read_as<uint8_t>(data, i) != 0 ? 1 : 0);
    case DType::I8:
      return from_int(read_as<int8_t>(data, i));
    case DType::I16:
      return from_int(read_as<int16_t>(data, i));
    case DType::I32:
      return from_int(read_as<int32_t>(data, i));
    case DType::I64:
      return from_int(read_as<int64_t>(data, i));
    case DType::U8:
      return from_uint(read_as<uint8_t>(data, i));
    case DType::U16:
      return from_uint(read_as<uint16_t>(data, i));
    case DType::U32:
      return from_uint(read_as<uint32_t>(data, i));
    case DType::U64:
      return from_uint(read_as<uint64_t>(data, i));
    case DType::F16:
      return from_double(f16_to_double(read_as<uint16_t>(data, i)));
    case DType::BF16:
      return from_double(bf16_to_double(read_as<uint16_t>(data, i)));
    case DType::F32:
      return from_double(read_as<float>(data, i));
    case DType::F64:
      return from_double(read_as<double>(data, i));
  }
  return from_uint(0);
}

void store(uint8_t* data, DType t, int64_t i, Value v) {
  switch (t) {
    case DType::Bool:
      write_as<uint8_t>(data, i, v.u != 0 ? 1 : 0);
      return;
    case DType::I8:
      write_as<int8_t>(data, i, static_cast<int8_t>(v.u));
      return;
    case DType::I16:
      write_as<int16_t>(data, i, static_cast<int16_t>(v.u));
      return;
    case DType::I32:
      write_as<int32_t>(data, i, static_cast<int32_t>(v.u));
      return;
    case DType::I64:
      write_as<int64_t>(data, i, v.i);
      return;
    case DType::U8:
      write_as<uint8_t>(data, i, static_cast<uint8_t>(v.u));
      return;
    case DType::U16:
      write_as<uint16_t>(data, i, static_cast<uint16_t>(v.u));
      return;
    case DType::U32:
      write_as<uint32_t>(data, i, static_cast<uint32_t>(v.u));
      return;
    case DType::U64:
      write_as<uint64_t>(data, i, v.u);
      return;
    case DType::F16:
      write_as<uint16_t>(data, i, f16_from_double(v.f));
      return;
    case DType::BF16:
      write_as<uint16_t>(data, i, bf16_from_double(v.f));
      return;
    case DType::F32:
      write_as<float>(data, i, static_cast<float>(v.f));
      return;
    case DType::F64:
      write_as<double>(data, i, v.f);
      return;
  }
}

}  // namespace plaidml::eval
