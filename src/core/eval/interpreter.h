// The reference interpreter: evaluates a BoundProgram on host tensors, directly from the
// semantics of docs/tile.md (every point of every contraction is enumerated and checked). It is
// the oracle of every device test, so it favours being obviously right over being fast.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/ir/bind.h"
#include "core/types/tensor.h"

namespace plaidml::eval {

// inputs: parallel to program->inputs, shapes equal to bound.input_shapes (else kInvalidArgument).
// Returns the outputs, parallel to program->outputs.
Expected<std::vector<HostTensor>> evaluate(const ir::BoundProgram& bound,
                                           const std::vector<HostTensor>& inputs);

}  // namespace plaidml::eval
