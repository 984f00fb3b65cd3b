#include "core/types/dtype.h"

#include <algorithm>

namespace plaidml {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int abi;
  int64_t size;
  bool is_float;
  bool is_signed;
};

constexpr DTypeInfo kTable[] = {
#define PLAIDML_DTYPE_ROW(e, name, abi, size, is_float, is_signed) \
  {DType::e, name, abi, size, is_float, is_signed},
    PLAIDML_DTYPES(PLAIDML_DTYPE_ROW)
#undef PLAIDML_DTYPE_ROW
};

const DTypeInfo& info(DType t) { return kTable[static_cast<int>(t)]; }

DType signed_of_bits(int bits) {
  switch (bits) {
    case 8: return DType::I8;
    case 16: return DType::I16;
    case 32: return DType::I32;
    default: return DType::I64;
  }
}

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& row : kTable) {
    if (row.name == name) return row.dtype;
  }
  return std::nullopt;
}

int dtype_abi_value(DType t) { return info(t).abi; }

std::optional<DType> dtype_from_abi_value(int value) {
  for (const auto& row : kTable) {
    if (row.abi == value) return row.dtype;
  }
  return std::nullopt;
}

int64_t dtype_size(DType t) { return info(t).size; }
bool dtype_is_float(DType t) { return info(t).is_float; }
bool dtype_is_signed(DType t) { return info(t).is_signed; }
bool dtype_is_integer(DType t) { return !info(t).is_float && t != DType::Bool; }
int dtype_bits(DType t) { return t == DType::Bool ? 1 : static_cast<int>(info(t).size * 8); }

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    // f16 with bf16: neither holds the other; f32 holds both.
    if (dtype_bits(a) == dtype_bits(b)) return DType::F32;
    return dtype_bits(a) > dtype_bits(b) ? a : b;
  }
  bool sa = dtype_is_signed(a), sb = dtype_is_signed(b);
  int ba = dtype_bits(a), bb = dtype_bits(b);
  if (sa == sb) return ba >= bb ? a : b;
  // Mixed signedness: the signed one wins when it is strictly wider.
  DType s = sa ? a : b, u = sa ? b : a;
  if (dtype_bits(s) > dtype_bits(u)) return s;
  return signed_of_bits(std::min(64, dtype_bits(u) * 2));
}

}  // namespace plaidml
