// A concrete tensor shape: dtype plus dimension sizes (row-major, C order).
#pragma once

#include <cstdint>
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
  bool operator==(const Shape& other) const = default;
};

// "[2, 3]" form of a dim list, for error messages.
std::string dims_to_string(const std::vector<int64_t>& dims);

}  // namespace plaidml
