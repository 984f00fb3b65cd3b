// The CLI's view of plaidml dtypes: names, sizes and NumPy descriptors. The enum values equal the
// PLAIDML_DTYPE_* values of include/plaidml/plaidml.h (append-only), so a cast converts between
// them; the CLI keeps its own table because it is built only on the public C API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plaidml_cli {

// X(Enum, name, c_abi_value, size_bytes, numpy_descr)
// numpy_descr is what the CLI writes; bf16 has no NumPy dtype and is stored as raw '<u2' bits.
#define PLAIDML_CLI_DTYPES(X)   \
  X(Bool, "bool", 1, 1, "|b1")  \
  X(I8, "i8", 2, 1, "|i1")      \
  X(I16, "i16", 3, 2, "<i2")    \
  X(I32, "i32", 4, 4, "<i4")    \
  X(I64, "i64", 5, 8, "<i8")    \
  X(U8, "u8", 6, 1, "|u1")      \
  X(U16, "u16", 7, 2, "<u2")    \
  X(U32, "u32", 8, 4, "<u4")    \
  X(U64, "u64", 9, 8, "<u8")    \
  X(F16, "f16", 10, 2, "<f2")   \
  X(BF16, "bf16", 11, 2, "<u2") \
  X(F32, "f32", 12, 4, "<f4")   \
  X(F64, "f64", 13, 8, "<f8")

enum class Dtype : int {
#define PLAIDML_CLI_DTYPE_ENUM(e, name, abi, size, descr) e = abi,
  PLAIDML_CLI_DTYPES(PLAIDML_CLI_DTYPE_ENUM)
#undef PLAIDML_CLI_DTYPE_ENUM
};

std::string_view dtype_name(Dtype t);  // "f32"
std::optional<Dtype> dtype_from_name(std::string_view name);
std::optional<Dtype> dtype_from_abi(int value);
int64_t dtype_size(Dtype t);
bool dtype_is_float(Dtype t);
bool dtype_is_signed_int(Dtype t);
std::string_view dtype_numpy_descr(Dtype t);  // the descriptor the CLI writes
std::string all_dtype_names();                // "bool, i8, ..., f64" for error messages

// Reads element i of a buffer of dtype t as a double (f16/bf16 widened exactly).
double load_as_double(Dtype t, const void* data, int64_t i);

// IEEE binary16 and bfloat16 conversions (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

}  // namespace plaidml_cli
