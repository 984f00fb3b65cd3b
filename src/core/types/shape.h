// A concrete tensor shape: dtype plus dimension sizes (row-major, C order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types/dtype.h"

namespace plaidml {

struct Shape {
  DType dtype = DType::F32;
  std::vector<int64_t> dims;

  Shape() = default;
  Shape(DType dtype, std::vector<int64_t> dims) : dtype(dtype), dims(std::move(dims)) {}

  size_t rank() const { return dims.size(); }
  int64_t elements() const;  // product of dims; 1 for a scalar
  int64_t byte_size() const { return elements() * dtype_size(dtype); }
  std::vector<int64_t> strides() const;  // in elements, row-major
  std::string to_string() const;         // "f32[2, 3]"; "f32[]" for a scalar
  // Why the shape cannot be stored, when its byte size or a dimension's byte stride does not
  // fit in int64_t (elements(), byte_size() and strides() would wrap): "its byte size
  // overflows 64-bit integers". Callers check it wherever sizes come from users (buffers,
  // binding). Dims must be >= 0.
  std::optional<std::string> size_error() const;
  bool operator==(const Shape& other) const = default;
};

// "[2, 3]" form of a dim list, for error messages.
std::string dims_to_string(const std::vector<int64_t>& dims);

}  // namespace plaidml
