// Reverse-mode automatic differentiation over the graph IR (docs/tile.md semantics).
//
// gradient() returns a new program: the original one, with the gradient of the scalar output
// `loss` with respect to each input in `wrt` appended as an output (named by `grad_names`, or
// "<input>_grad"). Rules (one per node kind, see rules_*.cc):
//   - contraction with + (or = ) aggregation: for each input, a contraction that swaps the output
//     access and that input's access and keeps the constraints (PlaidML's rule);
//   - > and < aggregation route the gradient to the elements equal to the result;
//   - elementwise ops by a rule table; broadcasting is undone by summation;
//   - reshape by reshaping back, gather by scatter.
// Errors (kInvalidArgument unless noted), each naming the op and the value:
//   an unknown loss or input name (kNotFound); a loss that is not a scalar (kTypeError);
//   a gradient through an integer or boolean op (comparisons, casts to integers, bit ops,
//   argmax) or through `*` aggregation. index(X) and shape(X) are constants (they read only X's
//   shape). The rules, the choices (ties, dtypes) and every message: docs/autodiff.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::autodiff {

Expected<std::shared_ptr<const ir::Program>> gradient(const ir::Program& program,
                                                      const std::string& loss,
                                                      const std::vector<std::string>& wrt,
                                                      const std::vector<std::string>& grad_names);

}  // namespace plaidml::autodiff
