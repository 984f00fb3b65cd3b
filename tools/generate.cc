#include "generate.h"

#include <cstring>
#include <random>

namespace plaidml_cli {

namespace {

template <typename T>
void store(void* data, int64_t i, T v) {
  std::memcpy(static_cast<char*>(data) + i * sizeof(T), &v, sizeof(T));
}

// FNV-1a: a stable hash of the input name, so the stream does not depend on argument order.
uint64_t name_hash(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

double random_value(Dtype t, std::mt19937_64& rng) {
  // Integer draws use the raw bits (not std::uniform_int_distribution, whose output differs
  // between standard libraries) so a seed gives the same numbers everywhere.
  uint64_t bits = rng();
  if (dtype_is_float(t)) return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
  if (t == Dtype::Bool) return static_cast<double>(bits >> 63);
  auto small = static_cast<double>((bits >> 32) % 9);  // 0..8
  return dtype_is_signed_int(t) ? small - 4 : small;
}

}  // namespace

void store_from_double(Dtype t, void* data, int64_t i, double value) {
  switch (t) {
    case Dtype::Bool:
      return store<uint8_t>(data, i, value != 0);
    case Dtype::I8:
      return store(data, i, static_cast<int8_t>(value));
    case Dtype::I16:
      return store(data, i, static_cast<int16_t>(value));
    case Dtype::I32:
      return store(data, i, static_cast<int32_t>(value));
    case Dtype::I64:
      return store(data, i, static_cast<int64_t>(value));
    case Dtype::U8:
      return store(data, i, static_cast<uint8_t>(value));
    case Dtype::U16:
      return store(data, i, static_cast<uint16_t>(value));
    case Dtype::U32:
      return store(data, i, static_cast<uint32_t>(value));
    case Dtype::U64:
      return store(data, i, static_cast<uint64_t>(value));
    case Dtype::F16:
      return store(data, i, float_to_half(static_cast<float>(value)));
    case Dtype::BF16:
      return store(data, i, float_to_bf16(static_cast<float>(value)));
    case Dtype::F32:
      return store(data, i, static_cast<float>(value));
    case Dtype::F64:
      return store(data, i, value);
  }
}

NpyArray generate_input(const InputSpec& spec, uint64_t seed) {
  NpyArray array;
  array.dtype = spec.dtype;
  array.shape = spec.dims;
  int64_t n = array.element_count();
  array.data.assign(static_cast<size_t>(n * dtype_size(array.dtype)), 0);
  std::mt19937_64 rng(seed ^ name_hash(spec.name));
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    switch (spec.kind) {
      case InputSpec::Kind::kRandom:
        v = random_value(spec.dtype, rng);
        break;
      case InputSpec::Kind::kOnes:
        v = 1;
        break;
      case InputSpec::Kind::kZeros:
      case InputSpec::Kind::kFile:
        v = 0;
        break;
    }
    store_from_double(array.dtype, array.data.data(), i, v);
  }
  return array;
}

}  // namespace plaidml_cli
