// Channels-last storage at import. ONNX lays images out channels first (N, C, spatial...), but
// the CPU's convolution schedule is fast channels last (N, spatial..., C), where a row of
// output channels is contiguous (docs/cpu-schedule.md): an NCHW 3x3 conv runs about 12 times
// slower there. So convolutions and pools keep their values channels last inside the program,
// as onnxruntime's NHWC transformer and TensorFlow's layout optimizer do:
//   - a Value may hold its contents channels last (Value::channels_last) instead of, or beside,
//     the logical tensor; the logical one is made (one transpose) only when a converter that
//     knows nothing of layouts asks for it (NodeContext::tensor), and then kept;
//   - layout-aware converters (Conv, BatchNormalization, the pools, Concat) read and write the
//     channels-last form directly;
//   - elementwise ops that only broadcast (Relu, Add, Mul, Clip, ...) run "physically" on it:
//     their other operands are brought into the same order (known ones on the host), so that a
//     chain conv -> relu -> add -> conv never transposes.
// Graph outputs are always logical. The importer's layout option turns this off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host_tensor.h"
#include "plaidml/plaidml.hpp"

namespace plaidml::onnx_import {

// The smallest rank that has channels (N, C, one spatial axis).
constexpr size_t kMinChannelsRank = 3;

// Logical (N, C, s1..sk) -> stored (N, s1..sk, C): stored axis j holds logical axis perm[j].
std::vector<int64_t> to_channels_last(size_t rank);
// The inverse: stored -> logical.
std::vector<int64_t> from_channels_last(size_t rank);
// The stored axis that holds logical axis `axis`.
size_t stored_axis(size_t axis, size_t rank);

// out axis j = x axis perm[j].
plaidml::Tensor transpose(const plaidml::Tensor& x, const std::vector<int64_t>& perm);
HostTensor transpose(const HostTensor& x, const std::vector<int64_t>& perm);

// Ops that run on channels-last values unchanged: elementwise with numpy broadcasting and no
// axis attribute, every output shaped like the broadcast of the inputs.
bool is_layout_transparent(const std::string& op_type);

}  // namespace plaidml::onnx_import
