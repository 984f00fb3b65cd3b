// Contractions of the reference interpreter, straight from docs/tile.md section 2: the output
// starts as the default tensor (broadcast) or the aggregation identity; every integer point of the
// index box is visited; a point counts only if every access of the output and of every input is
// an integer inside its tensor and every condition holds; the combined value of a counted point
// is aggregated into the output element it addresses.
//
// Arithmetic: float contractions combine and accumulate in double and round once to the output
// dtype at the end; integer ones wrap in the output dtype (accumulated modulo 2^64, then
// narrowed, which is the same thing). Max/min ignore NaN values. `=` keeps the last point in
// row-major order of the index list.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/eval/values.h"
#include "core/ir/bind.h"

namespace plaidml::eval {

struct ContractionSpec {
  const ir::BoundContraction* contraction = nullptr;
  DType result_dtype;
  // Inputs are converted to it before combining; for `==` and `A == B ? C` it is the dtype A
  // and B are compared in (C is taken in result_dtype), as bind sets it.
  DType compute_dtype;
  std::vector<int64_t> dims;              // output dims
  std::vector<const Tensor*> inputs;      // parallel to contraction->inputs
  const Tensor* default_value = nullptr;  // `default D`, already evaluated
};

// Errors only on broken invariants (kInternal) or a box too large to enumerate (kUnsupported).
Expected<Tensor> eval_contraction(const ContractionSpec& spec);

}  // namespace plaidml::eval
