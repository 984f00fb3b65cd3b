// The dtype table. Every switch over DType has no default: adding a row makes the compiler list
// every place that must learn about it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plaidml {

// X(Enum, tile_name, c_abi_value, size_bytes, is_float, is_signed)
// c_abi_value is the value of PLAIDML_DTYPE_* in plaidml.h (append-only).
#define PLAIDML_DTYPES(X)             \
  X(Bool, "bool", 1, 1, false, false) \
  X(I8, "i8", 2, 1, false, true)      \
  X(I16, "i16", 3, 2, false, true)    \
  X(I32, "i32", 4, 4, false, true)    \
  X(I64, "i64", 5, 8, false, true)    \
  X(U8, "u8", 6, 1, false, false)     \
  X(U16, "u16", 7, 2, false, false)   \
  X(U32, "u32", 8, 4, false, false)   \
  X(U64, "u64", 9, 8, false, false)   \
  X(F16, "f16", 10, 2, true, true)    \
  X(BF16, "bf16", 11, 2, true, true)  \
  X(F32, "f32", 12, 4, true, true)    \
  X(F64, "f64", 13, 8, true, true)

enum class DType : uint8_t {
#define PLAIDML_DTYPE_ENUM(e, name, abi, size, is_float, is_signed) e,
  PLAIDML_DTYPES(PLAIDML_DTYPE_ENUM)
#undef PLAIDML_DTYPE_ENUM
};

std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
int dtype_abi_value(DType t);
std::optional<DType> dtype_from_abi_value(int value);
int64_t dtype_size(DType t);  // bytes per element (bool is one byte: 0 or 1)
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);  // floats count as signed
bool dtype_is_integer(DType t);  // signed or unsigned integers, not bool
int dtype_bits(DType t);

// docs/tile.md section 3: float beats int, wider beats narrower, signed/unsigned of equal width
// gives the next wider signed type if there is one (u64 with i64 gives i64), bool is the lowest.
DType promote(DType a, DType b);

}  // namespace plaidml
