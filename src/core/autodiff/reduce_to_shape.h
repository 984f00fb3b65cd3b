// Undoing numpy broadcasting: the gradient of a broadcast operand is the result's gradient
// summed over the axes the operand was stretched along.
#pragma once

#include "core/autodiff/grad_context.h"

namespace plaidml::autodiff::detail {

// Sums g (of the broadcast result dims `gdims`) down to `target` (an operand's dims, rank <=
// gdims'): leading extra axes are summed; an axis whose target size is the literal 1 sums to
// index 0; an axis whose two sizes are different symbolic expressions (equal, or the operand's 1,
// at run time) uses the output index `j * min(S - 1, 1)`, a bind-time factor that is 0 when the
// operand's size S is 1 (all of j sums into 0) and 1 otherwise. Returns g when nothing changes.
ValueId reduce_to_shape(GradContext& cx, ValueId g, const ir::SymbolicDims& gdims,
                        const ir::SymbolicDims& target);

}  // namespace plaidml::autodiff::detail
