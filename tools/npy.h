// NumPy .npy files (format versions 1.0, 2.0 and 3.0): read and write for every plaidml dtype.
// Only little-endian, C-order arrays are accepted: anything else is refused with a message that
// says how to convert it in NumPy. bf16 has no NumPy dtype: it is written as raw '<u2' bits (see
// npy_write_warning) and, on reading, a '<u2' file is u16 unless the caller asks for bf16.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dtypes.h"
#include "result.h"

namespace plaidml_cli {

struct NpyArray {
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;  // empty: a scalar (one element)
  std::vector<uint8_t> data;   // element_count() * dtype_size(dtype) bytes, little-endian, C order

  int64_t element_count() const;
};

// "2x3x4", "scalar" for rank 0.
std::string format_dims(const std::vector<int64_t>& shape);

// Parses the bytes of a .npy file. `source` names it in error messages (usually the path).
Result<NpyArray> decode_npy(std::string_view bytes, std::string_view source);
// The bytes of a .npy file holding `array` (version 1.0, or 2.0 when the header needs it).
std::string encode_npy(const NpyArray& array);

Result<NpyArray> read_npy(const std::string& path);
Result<Done> write_npy(const std::string& path, const NpyArray& array);

// A warning to show the user when writing this dtype loses information NumPy would need to
// interpret the file (bf16 is stored as '<u2' bits), else nullopt.
std::optional<std::string> npy_write_warning(Dtype dtype, std::string_view path);

}  // namespace plaidml_cli
