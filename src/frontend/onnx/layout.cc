#include "layout.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace plaidml::onnx_import {

std::vector<int64_t> to_channels_last(size_t rank) {
  std::vector<int64_t> perm = {0};
  for (size_t a = 2; a < rank; ++a) perm.push_back(static_cast<int64_t>(a));
  perm.push_back(1);
  return perm;
}

std::vector<int64_t> from_channels_last(size_t rank) {
  std::vector<int64_t> perm = {0, static_cast<int64_t>(rank) - 1};
  for (size_t a = 1; a + 1 < rank; ++a) perm.push_back(static_cast<int64_t>(a));
  return perm;
}

size_t stored_axis(size_t axis, size_t rank) {
  if (axis == 0) return 0;
  return axis == 1 ? rank - 1 : axis - 1;
}

plaidml::Tensor transpose(const plaidml::Tensor& x, const std::vector<int64_t>& perm) {
  return plaidml::op("transpose", {x}, plaidml::Attrs().set("perm", perm));
}

namespace {

// Moves n elements of Bytes bytes: the source offset follows the output index incrementally
// (step: the source stride of each output axis), so a 25M-element weight moves in a fraction of
// a second at import.
template <size_t Bytes>
void permute_elements(const char* src, char* dst, int64_t n, const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& step) {
  size_t rank = dims.size();
  std::vector<int64_t> at(rank, 0);
  int64_t from = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * Bytes, src + static_cast<size_t>(from) * Bytes,
                Bytes);
    for (size_t j = rank; j-- > 0;) {
      from += step[j];
      if (++at[j] < dims[j]) break;
      from -= step[j] * dims[j];
      at[j] = 0;
    }
  }
}

}  // namespace

HostTensor transpose(const HostTensor& x, const std::vector<int64_t>& perm) {
  size_t rank = x.rank();
  std::vector<int64_t> dims(rank), step(rank);
  for (size_t j = 0; j < rank; ++j) dims[j] = x.dims[static_cast<size_t>(perm[j])];
  HostTensor out = HostTensor::zeros(x.dtype, dims);
  // Row-major strides of x, read in the output's axis order.
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t a = rank; a-- > 1;) in_stride[a - 1] = in_stride[a] * x.dims[a];
  for (size_t j = 0; j < rank; ++j) step[j] = in_stride[static_cast<size_t>(perm[j])];
  const auto* src = static_cast<const char*>(x.data);
  auto* dst = static_cast<char*>(out.mutable_data());
  int64_t n = out.elements();
  switch (dtype_bytes(x.dtype)) {
    case 1: permute_elements<1>(src, dst, n, dims, step); break;
    case 2: permute_elements<2>(src, dst, n, dims, step); break;
    case 4: permute_elements<4>(src, dst, n, dims, step); break;
    default: permute_elements<8>(src, dst, n, dims, step); break;
  }
  return out;
}

bool is_layout_transparent(const std::string& op_type) {
  static const std::set<std::string> ops = {
      "Abs",     "Add",      "Cast",        "Ceil",      "Celu",        "Clip",
      "Cos",     "Div",      "Dropout",     "Elu",       "Erf",         "Exp",
      "Floor",   "Gelu",     "HardSigmoid", "HardSwish", "Identity",    "LeakyRelu",
      "Log",     "Max",      "Mean",        "Min",       "Mish",        "Mul",
      "Neg",     "Pow",      "Reciprocal",  "Relu",      "Round",       "Selu",
      "Sigmoid", "Sign",     "Sin",         "Softplus",  "Softsign",    "Sqrt",
      "Sub",     "Sum",      "Tanh",        "ThresholdedRelu"};
  return ops.count(op_type) != 0;
}

}  // namespace plaidml::onnx_import
