// Helpers shared by the shape, layout and index ops: axis lists, products of dims, reshape and
// transpose of a value, and the run-time guard that turns a violated size condition into a bind
// error instead of a wrong answer.
#pragma once

#include <optional>
#include <vector>

#include "core/oplib/op_call.h"

namespace plaidml::oplib::util {

// The product of dims[begin, end) (1 when empty).
IntExprPtr product(const SymbolicDims& dims, size_t begin, size_t end);

// `axes` (attribute `attr`) normalised into [0, rank); a repeated axis is an error
// ("squeeze: attribute 'axes' names axis 1 twice").
Expected<std::vector<int64_t>> normalize_axes(const OpCall& c, const std::vector<int64_t>& axes,
                                              size_t rank, std::string_view attr);

// reshape(x, dims...).
ValueId reshape(OpCall& c, ValueId x, const SymbolicDims& dims);

// The transpose of x (dims `dims`): result axis k is x's axis perm[k].
ValueId transpose(OpCall& c, ValueId x, const SymbolicDims& dims, const std::vector<int64_t>& perm);

// A scalar zero of x's dtype whose binding fails when any of `nonneg` is negative: a zero-element
// tensor reshaped to [nonneg..., 0] (reshape rejects a negative size whatever the element count).
// Use it as the `default` of a contraction whose every output element is then overwritten, so
// the check costs nothing and a program that depends on the result cannot skip it. x has rank
// `rank`. Returns nullopt when `nonneg` is empty.
std::optional<ValueId> size_guard(OpCall& c, ValueId x, size_t rank,
                                  const std::vector<IntExprPtr>& nonneg);

// A 1-D tensor of x's dtype and length n (its values are unspecified): the shape carrier of
// index() iotas and guards. x has rank `rank`.
ValueId vector_of_length(OpCall& c, ValueId x, size_t rank, IntExprPtr n);

}  // namespace plaidml::oplib::util
