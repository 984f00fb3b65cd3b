// Elementwise ops of the reference interpreter (every row of ir/ops.h except the structural
// ones): numpy broadcasting, operands converted to the node's compute dtype, the result
// narrowed to the node's dtype.
//
// Choices where C leaves a gap (devices must match them):
//  - integer `/` truncates toward zero, `%` takes the dividend's sign (C); x / 0 and x % 0 give
//    0; INT_MIN / -1 wraps (gives INT_MIN); float % is fmod.
//  - `<<`, `>>` by a negative amount or by at least the bit width of the compute dtype give 0;
//    `>>` of a signed value is arithmetic.
//  - ~ of bool is logical not.
//  - max/min of floats ignore a NaN operand (IEEE maxNum/minNum, C fmax/fmin).
//  - relu(x) = x < 0 ? 0 : x (keeps NaN); sign gives -1, 0 or 1 (NaN stays NaN);
//    round is C round (half away from zero); recip of an integer 0 gives 0.
//  - abs of the most negative integer wraps to itself.
//  - float functions are computed in double and rounded once to the result dtype.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/eval/values.h"
#include "core/ir/ops.h"

namespace plaidml::eval {

struct ElementwiseSpec {
  ir::OpKind op;
  DType result_dtype;         // dtype of the produced tensor
  DType compute_dtype;        // operands are converted to it (casts convert straight to the result)
  std::vector<int64_t> dims;  // result dims
};

// operands: one per op operand, already evaluated. Errors only on broken invariants (kInternal).
Expected<Tensor> eval_elementwise(const ElementwiseSpec& spec,
                                  const std::vector<const Tensor*>& operands);

}  // namespace plaidml::eval
