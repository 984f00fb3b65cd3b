#include "core/types/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::string dims_to_string(const std::vector<int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

std::string Shape::to_string() const {
  return fmt::format("{}{}", dtype_name(dtype), dims_to_string(dims));
}

}  // namespace plaidml
