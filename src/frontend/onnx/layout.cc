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

HostTensor transpose(const HostTensor& x, const std::vector<int64_t>& perm) {
  size_t rank = x.rank();
  std::vector<int64_t> dims(rank);
  for (size_t j = 0; j < rank; ++j) dims[j] = x.dims[static_cast<size_t>(perm[j])];
  HostTensor out = HostTensor::zeros(x.dtype, dims);
  // Row-major strides of x, read in the output's axis order.
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t a = rank; a-- > 1;) in_stride[a - 1] = in_stride[a] * x.dims[a];
  size_t bytes = dtype_bytes(x.dtype);
  const auto* src = static_cast<const char*>(x.data);
  auto* dst = static_cast<char*>(out.mutable_data());
  std::vector<int64_t> at(rank, 0);
  for (int64_t i = 0, n = out.elements(); i < n; ++i) {
    int64_t from = 0;
    for (size_t j = 0; j < rank; ++j) from += at[j] * in_stride[static_cast<size_t>(perm[j])];
    std::memcpy(dst + static_cast<size_t>(i) * bytes, src + static_cast<size_t>(from) * bytes,
                bytes);
    for (size_t j = rank; j-- > 0;) {
      if (++at[j] < dims[j]) break;
      at[j] = 0;
    }
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
