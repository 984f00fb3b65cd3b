#include "dtypes.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace plaidml_cli {

std::string_view dtype_name(Dtype t) {
  switch (t) {
#define PLAIDML_CLI_DTYPE_NAME(e, name, abi, size, descr) \
  case Dtype::e:                                          \
    return name;
    PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_NAME)
#undef PLAIDML_CLI_DTYPE_NAME
  }
  return "?";
}

std::optional<Dtype> dtype_from_name(std::string_view name) {
#define PLAIDML_CLI_DTYPE_FROM_NAME(e, n, abi, size, descr) \
  if (name == n) return Dtype::e;
  PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_FROM_NAME)
#undef PLAIDML_CLI_DTYPE_FROM_NAME
  return std::nullopt;
}

std::optional<Dtype> dtype_from_abi(int value) {
#define PLAIDML_CLI_DTYPE_FROM_ABI(e, n, abi, size, descr) \
  if (value == abi) return Dtype::e;
  PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_FROM_ABI)
#undef PLAIDML_CLI_DTYPE_FROM_ABI
  return std::nullopt;
}

int64_t dtype_size(Dtype t) {
  switch (t) {
#define PLAIDML_CLI_DTYPE_SIZE(e, name, abi, size, descr) \
  case Dtype::e:                                          \
    return size;
    PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_SIZE)
#undef PLAIDML_CLI_DTYPE_SIZE
  }
  return 0;
}

std::string_view dtype_numpy_descr(Dtype t) {
  switch (t) {
#define PLAIDML_CLI_DTYPE_DESCR(e, name, abi, size, descr) \
  case Dtype::e:                                           \
    return descr;
    PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_DESCR)
#undef PLAIDML_CLI_DTYPE_DESCR
  }
  return "?";
}

bool dtype_is_float(Dtype t) {
  return t == Dtype::F16 || t == Dtype::BF16 || t == Dtype::F32 || t == Dtype::F64;
}

bool dtype_is_signed_int(Dtype t) {
  return t == Dtype::I8 || t == Dtype::I16 || t == Dtype::I32 || t == Dtype::I64;
}

std::string all_dtype_names() {
  std::string out;
#define PLAIDML_CLI_DTYPE_LIST(e, name, abi, size, descr) \
  out += out.empty() ? "" : ", ";                         \
  out += name;
  PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_LIST)
#undef PLAIDML_CLI_DTYPE_LIST
  return out;
}

namespace {

template <typename T>
T load(const void* data, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

double load_as_double(Dtype t, const void* data, int64_t i) {
  switch (t) {
    case Dtype::Bool:
      return load<uint8_t>(data, i) != 0 ? 1.0 : 0.0;
    case Dtype::I8:
      return load<int8_t>(data, i);
    case Dtype::I16:
      return load<int16_t>(data, i);
    case Dtype::I32:
      return load<int32_t>(data, i);
    case Dtype::I64:
      return static_cast<double>(load<int64_t>(data, i));
    case Dtype::U8:
      return load<uint8_t>(data, i);
    case Dtype::U16:
      return load<uint16_t>(data, i);
    case Dtype::U32:
      return load<uint32_t>(data, i);
    case Dtype::U64:
      return static_cast<double>(load<uint64_t>(data, i));
    case Dtype::F16:
      return half_to_float(load<uint16_t>(data, i));
    case Dtype::BF16:
      return bf16_to_float(load<uint16_t>(data, i));
    case Dtype::F32:
      return load<float>(data, i);
    case Dtype::F64:
      return load<double>(data, i);
  }
  return 0;
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    // Subnormal (or zero): value = mant * 2^-24, exact in f32.
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (abs >= 0x477ff000u) return sign | 0x7c00;  // overflows to inf after rounding
  if (abs < 0x38800000u) {                       // below the smallest normal half
    float v = std::bit_cast<float>(abs);
    float scaled = v * 16777216.0f;  // 2^24: units of the smallest subnormal; exact
    uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));  // ties to even (default mode)
    return sign | static_cast<uint16_t>(m);
  }
  uint32_t mant = abs & 0x7fffff;
  uint32_t exp = (abs >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // round to nearest even
  return sign | static_cast<uint16_t>(h);
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace plaidml_cli
