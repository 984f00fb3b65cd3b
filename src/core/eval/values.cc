#include "core/eval/values.h"

#include <algorithm>

namespace plaidml::eval {

Tensor::Tensor(DType t, std::vector<int64_t> d)
    : dtype(t), dims(std::move(d)), data(static_cast<size_t>(element_count(dims)), from_uint(0)) {}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> broadcast_map(const std::vector<int64_t>& from,
                                   const std::vector<int64_t>& to) {
  size_t rank = to.size();
  size_t offset = rank - std::min(rank, from.size());
  // Stride of each `to` axis inside `from`; 0 where `from` is missing or stretched.
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = from.size(); k-- > 0;) {
    if (k + offset < rank && from[k] != 1) strides[k + offset] = stride;
    stride *= from[k];
  }
  int64_t total = element_count(to);
  std::vector<int64_t> map(static_cast<size_t>(total));
  std::vector<int64_t> coord(rank, 0);
  int64_t src = 0;
  for (int64_t i = 0; i < total; ++i) {
    map[static_cast<size_t>(i)] = src;
    // Odometer increment of coord, keeping src in step.
    for (size_t k = rank; k-- > 0;) {
      src += strides[k];
      if (++coord[k] < to[k]) break;
      src -= strides[k] * to[k];
      coord[k] = 0;
    }
  }
  return map;
}

Tensor broadcast_to(const Tensor& t, const std::vector<int64_t>& to, DType dtype) {
  Tensor out(dtype, to);
  if (t.dims == to) {
    for (int64_t i = 0; i < out.elements(); ++i) out.data[i] = convert(t.data[i], t.dtype, dtype);
    return out;
  }
  std::vector<int64_t> map = broadcast_map(t.dims, to);
  for (int64_t i = 0; i < out.elements(); ++i) {
    out.data[i] = convert(t.data[map[i]], t.dtype, dtype);
  }
  return out;
}

Tensor convert_tensor(const Tensor& t, DType dtype) { return broadcast_to(t, t.dims, dtype); }

Tensor from_host(const HostTensor& host) {
  Tensor t(host.shape.dtype, host.shape.dims);
  for (int64_t i = 0; i < t.elements(); ++i) t.data[i] = load(host.bytes.data(), t.dtype, i);
  return t;
}

HostTensor to_host(const Tensor& t) {
  HostTensor host(Shape(t.dtype, t.dims));
  for (int64_t i = 0; i < t.elements(); ++i) store(host.bytes.data(), t.dtype, i, t.data[i]);
  return host;
}

DType widest_of_domain(DType t) {
  if (t == DType::Bool) return t;
  switch (domain_of(t)) {
    case Domain::kFloat:
      return DType::F64;
    case Domain::kSigned:
      return DType::I64;
    case Domain::kUnsigned:
      return DType::U64;
  }
  return t;
}

}  // namespace plaidml::eval
