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

// Calls f(dst_offset, src_offset) for every index of the output axes `axes` (others at 0).
template <typename F>
void for_each_index(const std::vector<size_t>& axes, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& out_stride, const std::vector<int64_t>& step,
                    F&& f) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> at(axes.size(), 0);
  int64_t to = 0, from = 0;
  while (true) {
    f(to, from);
    size_t k = axes.size();
    while (k-- > 0) {
      size_t j = axes[k];
      to += out_stride[j];
      from += step[j];
      if (++at[k] < dims[j]) break;
      to -= out_stride[j] * dims[j];
      from -= step[j] * dims[j];
      at[k] = 0;
    }
    if (k == SIZE_MAX) return;
  }
}

// Moves the elements of Bytes bytes to their permuted places. step: the source stride of each
// output axis. When the source's innermost axis (output axis `inner_src`) is not the output's,
// the two are copied in 16 x 16 tiles, so that reads and writes both stay within a few cache
// lines (an OIHW -> HWIO weight of 25M elements moves in tens of milliseconds).
template <size_t Bytes>
void permute_elements(const char* src, char* dst, const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& step, size_t inner_src) {
  constexpr int64_t kTile = 16;
  size_t rank = dims.size(), last = rank - 1;
  std::vector<int64_t> out_stride(rank, 1);
  for (size_t j = last; j-- > 0;) out_stride[j] = out_stride[j + 1] * dims[j + 1];
  std::vector<size_t> outer;
  for (size_t j = 0; j < last; ++j) {
    if (j != inner_src) outer.push_back(j);
  }
  if (inner_src == last) {  // whole rows are contiguous on both sides
    for_each_index(outer, dims, out_stride, step, [&](int64_t to, int64_t from) {
      std::memcpy(dst + to * Bytes, src + from * Bytes, static_cast<size_t>(dims[last]) * Bytes);
    });
    return;
  }
  const int64_t rows = dims[inner_src], cols = dims[last];
  const int64_t row_to = out_stride[inner_src], col_from = step[last];
  for_each_index(outer, dims, out_stride, step, [&](int64_t to, int64_t from) {
    for (int64_t p0 = 0; p0 < rows; p0 += kTile) {
      for (int64_t q0 = 0; q0 < cols; q0 += kTile) {
        for (int64_t p = p0; p < std::min(p0 + kTile, rows); ++p) {
          for (int64_t q = q0; q < std::min(q0 + kTile, cols); ++q) {
            std::memcpy(dst + (to + p * row_to + q) * Bytes,
                        src + (from + p + q * col_from) * Bytes, Bytes);
          }
        }
      }
    }
  });
}

// The permutation with output axes merged where the source holds them adjacent and in the
// same order (OIHW -> HWIO is [9][I][O] from [O][I][9]): fewer, longer axes make longer tiles.
// dims: the merged output dims; step: the source stride of each. Returns the merged axis that
// holds the source's innermost axis.
size_t merge_axes(const HostTensor& x, const std::vector<int64_t>& perm,
                  std::vector<int64_t>& dims, std::vector<int64_t>& step) {
  size_t inner_src = 0;
  size_t rank = x.rank();
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t a = rank; a-- > 1;) in_stride[a - 1] = in_stride[a] * x.dims[a];
  for (size_t j = 0; j < rank; ++j) {
    auto axis = static_cast<size_t>(perm[j]);
    if (j > 0 && perm[j] == perm[j - 1] + 1) {
      dims.back() *= x.dims[axis];
      step.back() = in_stride[axis];
    } else {
      dims.push_back(x.dims[axis]);
      step.push_back(in_stride[axis]);
    }
    if (axis == rank - 1) inner_src = dims.size() - 1;
  }
  return inner_src;
}

}  // namespace

HostTensor transpose(const HostTensor& x, const std::vector<int64_t>& perm) {
  size_t rank = x.rank();
  std::vector<int64_t> out_dims(rank);
  for (size_t j = 0; j < rank; ++j) out_dims[j] = x.dims[static_cast<size_t>(perm[j])];
  HostTensor out = HostTensor::uninitialized(x.dtype, out_dims);
  if (rank == 0 || out.elements() == 0) {
    if (rank == 0) std::memcpy(out.mutable_data(), x.data, x.byte_size());
    return out;
  }
  std::vector<int64_t> dims, step;
  size_t inner_src = merge_axes(x, perm, dims, step);
  const auto* src = static_cast<const char*>(x.data);
  auto* dst = static_cast<char*>(out.mutable_data());
  switch (dtype_bytes(x.dtype)) {
    case 1: permute_elements<1>(src, dst, dims, step, inner_src); break;
    case 2: permute_elements<2>(src, dst, dims, step, inner_src); break;
    case 4: permute_elements<4>(src, dst, dims, step, inner_src); break;
    default: permute_elements<8>(src, dst, dims, step, inner_src); break;
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
