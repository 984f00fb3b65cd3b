// Shared arithmetic of the nn ops (linalg, conv, conv_transpose, pooling): the spatial attributes
// (strides, dilations, padding modes, pads, layout), their symbolic output sizes and low pads, and
// conv's size agreements (OpCall::require: checked now, or when the program is bound).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/oplib/op_call.h"

namespace plaidml::oplib {

namespace se = ir::size_expr;

std::vector<OpDef> conv_transpose_ops();  // conv_transpose.cc; conv_ops() lists them

// The spatial attributes of a conv, conv_transpose or pooling op, checked against `spatial`.
struct SpatialAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;  // all 1 for pooling
  std::string padding;             // valid, same_upper, same_lower, explicit
  std::vector<int64_t> pads;       // explicit: lo_0..lo_{s-1}, hi_0..hi_{s-1}; else empty
  bool channels_first = false;
};

// Reads strides (default `default_strides`), dilations (when `with_dilations`), padding, pads and
// layout; errors name the op and the attribute.
Expected<SpatialAttrs> read_spatial_attrs(OpCall& call, size_t spatial,
                                          const std::vector<int64_t>& default_strides,
                                          bool with_dilations);

// A list attribute of exactly `spatial` entries, each >= `min` (defaults to `fallback`).
Expected<std::vector<int64_t>> read_spatial_list(OpCall& call, std::string_view name,
                                                 size_t spatial, int64_t min,
                                                 std::optional<std::vector<int64_t>> fallback);

// One spatial axis of a forward window op (conv, pooling): input size, window size (the kernel
// extent before dilation), and the resulting output size and low pad.
struct AxisGeometry {
  IntExprPtr out;
  IntExprPtr pad_lo;
};
AxisGeometry forward_axis(const SpatialAttrs& a, size_t axis, IntExprPtr in, IntExprPtr window);

// The low pad of a "same" mode for an axis whose forward input has size `in` and output `out`.
IntExprPtr same_pad_lo(const SpatialAttrs& a, size_t axis, IntExprPtr in, IntExprPtr out,
                       IntExprPtr window);

// The layout of an activation tensor: positions of the batch, channel and spatial axes.
struct Layout {
  size_t rank = 0;
  bool channels_first = false;
  size_t channel_axis() const { return channels_first ? 1 : rank - 1; }
  size_t spatial_axis(size_t s) const { return channels_first ? 2 + s : 1 + s; }
  // Indices for the whole tensor from batch, spatial and channel indices.
  std::vector<IntExprPtr> place(IntExprPtr n, const std::vector<IntExprPtr>& spatial,
                                IntExprPtr c) const;
};

// The operands and attributes of conv / conv_transpose, read and checked.
struct ConvSetup {
  SpatialAttrs attrs;
  Layout layout;
  size_t spatial = 0;
  int64_t groups = 1;
  SymbolicDims input, kernel;
  IntExprPtr batch, channels;        // of the input
  std::vector<IntExprPtr> in_sizes;  // input spatial sizes
  std::vector<IntExprPtr> k_sizes;   // kernel spatial sizes
  IntExprPtr k_in, k_out;            // kernel "I" (per group) and "O" dims
  bool oihw = false;
  // Kernel indices from spatial, in and out indices, in the kernel's layout.
  std::vector<IntExprPtr> kernel_access(const std::vector<IntExprPtr>& k, IntExprPtr in,
                                        IntExprPtr out) const;
};
Expected<ConvSetup> read_conv(OpCall& call);

// `g * per_group + i` for group index g (just `i` when there is one group).
IntExprPtr grouped(const IntExprPtr& g, const IntExprPtr& per_group, const IntExprPtr& i);

// The bias operand (index 2) as the default of a conv's contraction: [C] for channels_last,
// [C, 1, ...] for channels_first, so that the contraction's bind-time default check sees it;
// its size is required equal to `channels`. nullopt when there is no bias.
Expected<std::optional<ValueId>> bias_default(OpCall& call, const ConvSetup& s,
                                              const IntExprPtr& channels);

// The conv's channel agreements: `channels` == groups * `per_group`, and `divisible` a multiple of
// groups; each checked now where the sizes are known, else required at bind.
Status check_channels(OpCall& call, const ConvSetup& s, const IntExprPtr& channels,
                      const IntExprPtr& per_group, const IntExprPtr& divisible,
                      std::string_view divisible_what);

// "[a, b, c]" for messages.
std::string dims_string(const SymbolicDims& dims);

}  // namespace plaidml::oplib
