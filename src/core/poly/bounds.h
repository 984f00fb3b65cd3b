// Bounds inference: the tightest integer interval of each index variable that a contraction's
// constraints allow, plus the constraints that interval box does not already imply (the
// residual, kept as per-point guards). Solved exactly with isl (integer sets).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/poly/affine.h"

namespace plaidml::poly {

struct IndexRange {
  int64_t lo = 0;  // inclusive
  int64_t hi = 0;  // inclusive
  int64_t extent() const { return hi - lo + 1; }
};

struct BoundsResult {
  std::vector<std::string> indices;  // the order given in the request
  std::vector<IndexRange> ranges;    // parallel to indices
  // Constraints from the request that the box (plus integrality) does not imply, tightened to
  // integer ends. Integrality of rational expressions is not listed here: callers check it with
  // Affine::denominator() on the accesses.
  std::vector<RangeConstraint> residual;
  bool empty = false;  // no integer point satisfies all constraints
};

// indices: every index variable (all must be bounded by the constraints, else kTypeError naming
// the unbounded index). Points must additionally make every expression in `integral` an integer
// (rational-index accesses): the solver uses this for exact bounds (exists k: den*k = num).
Expected<BoundsResult> infer_bounds(const std::vector<std::string>& indices,
                                    const std::vector<RangeConstraint>& constraints,
                                    const std::vector<Affine>& integral = {});

}  // namespace plaidml::poly
