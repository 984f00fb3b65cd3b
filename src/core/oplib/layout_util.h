// Helpers shared by the shape, layout and index ops: axis lists, products of dims, reshape and
// transpose of a value.
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

// A 1-D tensor of x's dtype and length n (its values are unspecified): the shape carrier of
// index() iotas. x has rank `rank`.
ValueId vector_of_length(OpCall& c, ValueId x, size_t rank, IntExprPtr n);

}  // namespace plaidml::oplib::util
