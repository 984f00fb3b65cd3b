// Axis reductions shared by the "math" op group (reductions, softmax, norms, losses): reading an
// `axes` attribute, and the contraction that reduces a tensor over a set of axes.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/oplib/op_call.h"

namespace plaidml::oplib {

// One flag per axis of the operand: true where the axis is reduced.
using AxisSet = std::vector<bool>;

// The axes named by list attribute `attr` for an operand of rank `rank`. Absent: `fallback`, or
// every axis when `fallback` is nullopt. Negative axes count from the end. Errors: an axis out of
// range, an axis named twice (also as -1 and rank-1).
Expected<AxisSet> read_axes(OpCall& c, std::string_view attr, size_t rank,
                            const std::optional<std::vector<int64_t>>& fallback);

// The set holding only `axis` (already normalised).
AxisSet single_axis(size_t rank, int64_t axis);

// X reduced with `agg` over `axes`. keepdims: reduced axes stay with size 1 (output index 0),
// so the result broadcasts against X; otherwise they are removed.
ValueId reduce(OpCall& c, ir::AggOp agg, ValueId x, const SymbolicDims& dims, const AxisSet& axes,
               bool keepdims);

// The number of elements each output element of `reduce` aggregates: the product of the
// reduced dims.
IntExprPtr reduced_count(const SymbolicDims& dims, const AxisSet& axes);

// The mean over `axes` (sum / count); integer tensors divide as integers (Tile semantics).
ValueId reduce_mean(OpCall& c, ValueId x, const SymbolicDims& dims, const AxisSet& axes,
                    bool keepdims);

// The numerically stable softmax pieces over `axis`: X - max(X), its exp, and the sum of that,
// all broadcasting against X.
struct SoftmaxParts {
  ValueId shifted = -1;  // X - max over axis
  ValueId exp = -1;      // exp(shifted)
  ValueId sum = -1;      // sum(exp) over axis, keepdims (log_softmax: shifted - log(sum))
};
SoftmaxParts softmax_parts(OpCall& c, ValueId x, const SymbolicDims& dims, int64_t axis);

// A float attribute value as a literal: an integral value becomes an integer literal, so that it
// keeps an integer tensor's dtype (an integer literal beside a float tensor takes its dtype).
ValueId number(OpCall& c, double v);

// clip(x, lo, hi) as max(min(x, hi), lo).
ValueId clip(OpCall& c, ValueId x, double lo, double hi);

}  // namespace plaidml::oplib
