#include "host_tensor.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "import_error.h"

namespace plaidml::onnx_import {
namespace {

// Asks the kernel for 2 MiB pages over the whole 2 MiB pages inside [p, p + bytes): a weight
// of 100 MB is then written through 50 page faults instead of 25,000, which took a third of
// importing ResNet-50. The partial pages at either end keep small pages, so no memory is added.
void advise_huge_pages(void* p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  auto begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  auto end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

uint16_t f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      x = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t f32_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bf16_to_f32(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

template <typename T>
T load(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(void* base, int64_t i, T v) {
  std::memcpy(static_cast<char*>(base) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

void store_double(plaidml_dtype dtype, void* base, int64_t i, double v) {
  switch (dtype) {
    case PLAIDML_DTYPE_BOOL: return store<uint8_t>(base, i, v != 0 ? 1 : 0);
    case PLAIDML_DTYPE_FLOAT16: return store<uint16_t>(base, i, f32_to_f16(static_cast<float>(v)));
    case PLAIDML_DTYPE_BFLOAT16: return store<uint16_t>(base, i, f32_to_bf16(static_cast<float>(v)));
    case PLAIDML_DTYPE_FLOAT32: return store<float>(base, i, static_cast<float>(v));
    case PLAIDML_DTYPE_FLOAT64: return store<double>(base, i, v);
    default: break;
  }
  // Integers: through int64 so that out-of-range values wrap as the integer conversion would.
  int64_t w = v >= 9.2e18 ? std::numeric_limits<int64_t>::max()
              : v <= -9.2e18 ? std::numeric_limits<int64_t>::min()
                             : static_cast<int64_t>(v);
  switch (dtype) {
    case PLAIDML_DTYPE_INT8: return store<int8_t>(base, i, static_cast<int8_t>(w));
    case PLAIDML_DTYPE_INT16: return store<int16_t>(base, i, static_cast<int16_t>(w));
    case PLAIDML_DTYPE_INT32: return store<int32_t>(base, i, static_cast<int32_t>(w));
    case PLAIDML_DTYPE_INT64: return store<int64_t>(base, i, w);
    case PLAIDML_DTYPE_UINT8: return store<uint8_t>(base, i, static_cast<uint8_t>(w));
    case PLAIDML_DTYPE_UINT16: return store<uint16_t>(base, i, static_cast<uint16_t>(w));
    case PLAIDML_DTYPE_UINT32: return store<uint32_t>(base, i, static_cast<uint32_t>(w));
    case PLAIDML_DTYPE_UINT64:
      return store<uint64_t>(base, i, v >= 9.2e18 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(w));
    default: break;
  }
}

void store_int(plaidml_dtype dtype, void* base, int64_t i, int64_t v) {
  switch (dtype) {
    case PLAIDML_DTYPE_BOOL: return store<uint8_t>(base, i, v != 0 ? 1 : 0);
    case PLAIDML_DTYPE_INT8: return store<int8_t>(base, i, static_cast<int8_t>(v));
    case PLAIDML_DTYPE_INT16: return store<int16_t>(base, i, static_cast<int16_t>(v));
    case PLAIDML_DTYPE_INT32: return store<int32_t>(base, i, static_cast<int32_t>(v));
    case PLAIDML_DTYPE_INT64: return store<int64_t>(base, i, v);
    case PLAIDML_DTYPE_UINT8: return store<uint8_t>(base, i, static_cast<uint8_t>(v));
    case PLAIDML_DTYPE_UINT16: return store<uint16_t>(base, i, static_cast<uint16_t>(v));
    case PLAIDML_DTYPE_UINT32: return store<uint32_t>(base, i, static_cast<uint32_t>(v));
    case PLAIDML_DTYPE_UINT64: return store<uint64_t>(base, i, static_cast<uint64_t>(v));
    default: return store_double(dtype, base, i, static_cast<double>(v));
  }
}

}  // namespace

size_t dtype_bytes(plaidml_dtype dtype) {
  switch (dtype) {
    case PLAIDML_DTYPE_BOOL:
    case PLAIDML_DTYPE_INT8:
    case PLAIDML_DTYPE_UINT8: return 1;
    case PLAIDML_DTYPE_INT16:
    case PLAIDML_DTYPE_UINT16:
    case PLAIDML_DTYPE_FLOAT16:
    case PLAIDML_DTYPE_BFLOAT16: return 2;
    case PLAIDML_DTYPE_INT32:
    case PLAIDML_DTYPE_UINT32:
    case PLAIDML_DTYPE_FLOAT32: return 4;
    case PLAIDML_DTYPE_INT64:
    case PLAIDML_DTYPE_UINT64:
    case PLAIDML_DTYPE_FLOAT64: return 8;
    default: return 0;
  }
}

bool dtype_is_float(plaidml_dtype d) {
  return d == PLAIDML_DTYPE_FLOAT16 || d == PLAIDML_DTYPE_BFLOAT16 || d == PLAIDML_DTYPE_FLOAT32 ||
         d == PLAIDML_DTYPE_FLOAT64;
}

bool dtype_is_signed_int(plaidml_dtype d) {
  return d == PLAIDML_DTYPE_INT8 || d == PLAIDML_DTYPE_INT16 || d == PLAIDML_DTYPE_INT32 ||
         d == PLAIDML_DTYPE_INT64;
}

bool dtype_is_unsigned_int(plaidml_dtype d) {
  return d == PLAIDML_DTYPE_UINT8 || d == PLAIDML_DTYPE_UINT16 || d == PLAIDML_DTYPE_UINT32 ||
         d == PLAIDML_DTYPE_UINT64;
}

std::string dtype_text(plaidml_dtype d) {
  switch (d) {
    case PLAIDML_DTYPE_BOOL: return "bool";
    case PLAIDML_DTYPE_INT8: return "i8";
    case PLAIDML_DTYPE_INT16: return "i16";
    case PLAIDML_DTYPE_INT32: return "i32";
    case PLAIDML_DTYPE_INT64: return "i64";
    case PLAIDML_DTYPE_UINT8: return "u8";
    case PLAIDML_DTYPE_UINT16: return "u16";
    case PLAIDML_DTYPE_UINT32: return "u32";
    case PLAIDML_DTYPE_UINT64: return "u64";
    case PLAIDML_DTYPE_FLOAT16: return "f16";
    case PLAIDML_DTYPE_BFLOAT16: return "bf16";
    case PLAIDML_DTYPE_FLOAT32: return "f32";
    case PLAIDML_DTYPE_FLOAT64: return "f64";
    default: return "?";
  }
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

double HostTensor::as_double(int64_t i) const {
  switch (dtype) {
    case PLAIDML_DTYPE_BOOL: return load<uint8_t>(data, i) ? 1.0 : 0.0;
    case PLAIDML_DTYPE_INT8: return load<int8_t>(data, i);
    case PLAIDML_DTYPE_INT16: return load<int16_t>(data, i);
    case PLAIDML_DTYPE_INT32: return load<int32_t>(data, i);
    case PLAIDML_DTYPE_INT64: return static_cast<double>(load<int64_t>(data, i));
    case PLAIDML_DTYPE_UINT8: return load<uint8_t>(data, i);
    case PLAIDML_DTYPE_UINT16: return load<uint16_t>(data, i);
    case PLAIDML_DTYPE_UINT32: return load<uint32_t>(data, i);
    case PLAIDML_DTYPE_UINT64: return static_cast<double>(load<uint64_t>(data, i));
    case PLAIDML_DTYPE_FLOAT16: return f16_to_f32(load<uint16_t>(data, i));
    case PLAIDML_DTYPE_BFLOAT16: return bf16_to_f32(load<uint16_t>(data, i));
    case PLAIDML_DTYPE_FLOAT32: return load<float>(data, i);
    case PLAIDML_DTYPE_FLOAT64: return load<double>(data, i);
    default: return 0;
  }
}

int64_t HostTensor::as_int(int64_t i) const {
  switch (dtype) {
    case PLAIDML_DTYPE_BOOL: return load<uint8_t>(data, i) ? 1 : 0;
    case PLAIDML_DTYPE_INT8: return load<int8_t>(data, i);
    case PLAIDML_DTYPE_INT16: return load<int16_t>(data, i);
    case PLAIDML_DTYPE_INT32: return load<int32_t>(data, i);
    case PLAIDML_DTYPE_INT64: return load<int64_t>(data, i);
    case PLAIDML_DTYPE_UINT8: return load<uint8_t>(data, i);
    case PLAIDML_DTYPE_UINT16: return load<uint16_t>(data, i);
    case PLAIDML_DTYPE_UINT32: return load<uint32_t>(data, i);
    case PLAIDML_DTYPE_UINT64: return static_cast<int64_t>(load<uint64_t>(data, i));
    default: {
      double v = as_double(i);
      if (!(v > -9.2e18 && v < 9.2e18)) return 0;
      return static_cast<int64_t>(v);
    }
  }
}

std::vector<int64_t> HostTensor::to_ints() const {
  std::vector<int64_t> out(static_cast<size_t>(elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = as_int(static_cast<int64_t>(i));
  return out;
}

std::vector<double> HostTensor::to_doubles() const {
  std::vector<double> out(static_cast<size_t>(elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = as_double(static_cast<int64_t>(i));
  return out;
}

HostTensor HostTensor::uninitialized(plaidml_dtype dtype, std::vector<int64_t> dims) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  int64_t n = t.elements();
  if (n < 0) invalid("a tensor of dims whose element count overflows");
  size_t bytes = static_cast<size_t>(n) * dtype_bytes(dtype);
  // 64-byte aligned (a cache line, the widest vector): the CPU device reads a weight in place
  // when it is (plaidml.h, plaidml_builder_add_constant), else copies it once.
  constexpr std::align_val_t kAlign{64};
  std::shared_ptr<char> storage(static_cast<char*>(::operator new(bytes == 0 ? 1 : bytes, kAlign)),
                                [kAlign](char* p) { ::operator delete(p, kAlign); });
  advise_huge_pages(storage.get(), bytes);
  t.data = storage.get();
  t.owner = std::shared_ptr<const void>(storage, storage.get());
  return t;
}

HostTensor HostTensor::zeros(plaidml_dtype dtype, std::vector<int64_t> dims) {
  HostTensor t = uninitialized(dtype, std::move(dims));
  std::memset(t.mutable_data(), 0, t.byte_size());
  return t;
}

HostTensor HostTensor::from_ints(plaidml_dtype dtype, std::vector<int64_t> dims,
                                 const std::vector<int64_t>& values) {
  HostTensor t = zeros(dtype, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    store_int(dtype, t.mutable_data(), static_cast<int64_t>(i), values[i]);
  }
  return t;
}

HostTensor HostTensor::from_doubles(plaidml_dtype dtype, std::vector<int64_t> dims,
                                    const std::vector<double>& values) {
  HostTensor t = zeros(dtype, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    store_double(dtype, t.mutable_data(), static_cast<int64_t>(i), values[i]);
  }
  return t;
}

std::vector<plaidml_dtype> concat_types(std::vector<plaidml_dtype> a,
                                        const std::vector<plaidml_dtype>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<plaidml_dtype>& float_types() {
  static const std::vector<plaidml_dtype> v = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16,
                                               PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64};
  return v;
}

const std::vector<plaidml_dtype>& signed_types() {
  static const std::vector<plaidml_dtype> v = {PLAIDML_DTYPE_INT8, PLAIDML_DTYPE_INT16,
                                               PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64};
  return v;
}

const std::vector<plaidml_dtype>& unsigned_types() {
  static const std::vector<plaidml_dtype> v = {PLAIDML_DTYPE_UINT8, PLAIDML_DTYPE_UINT16,
                                               PLAIDML_DTYPE_UINT32, PLAIDML_DTYPE_UINT64};
  return v;
}

const std::vector<plaidml_dtype>& int_types() {
  static const std::vector<plaidml_dtype> v = concat_types(signed_types(), unsigned_types());
  return v;
}

const std::vector<plaidml_dtype>& numeric_types() {
  static const std::vector<plaidml_dtype> v = concat_types(float_types(), int_types());
  return v;
}

const std::vector<plaidml_dtype>& all_types() {
  static const std::vector<plaidml_dtype> v = concat_types(numeric_types(), {PLAIDML_DTYPE_BOOL});
  return v;
}

}  // namespace plaidml::onnx_import
