#include "core/types/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace plaidml {

int64_t Shape::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::optional<std::string> Shape::size_error() const {
  int64_t bytes = dtype_size(dtype);
  // Strides multiply the dims after theirs, a 0 among them included, so they can overflow
  // where the byte size (0) does not: a 0 counts as 1 here.
  bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(bytes, d == 0 ? 1 : d, &bytes)) {
      return empty ? "a dimension's byte stride overflows 64-bit integers"
                   : "its byte size overflows 64-bit integers";
    }
  }
  return std::nullopt;
}

std::string dims_to_string(const std::vector<int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

std::string Shape::to_string() const {
  return fmt::format("{}{}", dtype_name(dtype), dims_to_string(dims));
}

}  // namespace plaidml
