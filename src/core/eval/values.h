// The interpreter's working form of a tensor: a dtype, dims and one Value per element (see
// scalar.h), plus the broadcasting and conversion helpers every evaluator needs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/eval/scalar.h"
#include "core/types/tensor.h"

namespace plaidml::eval {

struct Tensor {
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  std::vector<Value> data;  // row-major; every element representable in dtype

  Tensor() = default;
  Tensor(DType t, std::vector<int64_t> d);  // zero-filled
  int64_t elements() const { return static_cast<int64_t>(data.size()); }
};

int64_t element_count(const std::vector<int64_t>& dims);

// For each element of a tensor of dims `to` (row-major), the index of the element of a tensor of
// dims `from` that numpy broadcasting reads (right-aligned; size-1 dims stretch). The caller
// guarantees the dims are compatible (bind checked them).
std::vector<int64_t> broadcast_map(const std::vector<int64_t>& from,
                                   const std::vector<int64_t>& to);

// `t` broadcast to dims `to` and converted to dtype `dtype`.
Tensor broadcast_to(const Tensor& t, const std::vector<int64_t>& to, DType dtype);

// Element-wise dtype conversion (scalar.h convert()).
Tensor convert_tensor(const Tensor& t, DType dtype);

Tensor from_host(const HostTensor& host);
HostTensor to_host(const Tensor& t);

// The dtype a weak value (untyped literal or an op on literals only) is computed and kept in,
// so that literals stay exact until a typed consumer converts them: f64, i64, u64 or bool.
DType widest_of_domain(DType t);

}  // namespace plaidml::eval
