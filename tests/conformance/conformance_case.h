// The conformance suite's case list (docs/design.md section 9): every construct of docs/tile.md,
// written once, at shapes that straddle vector and tile edges (1, primes, t-1/t/t+1/2t around 16
// and 64, size-1 broadcast dims). The runner evaluates each case on every available device and
// compares it with the reference interpreter.
//
// A case is Tile text plus a list of shape sets (one dim list per program input), the inputs'
// dtypes, optional value ranges (positive inputs for log, small integers for shifts, ...) and an
// optional float tolerance override. Cases are grouped into families, one file each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types/dtype.h"
#include "support/tensors.h"

namespace plaidml::conformance {

using Dims = std::vector<int64_t>;
using ShapeSet = std::vector<Dims>;  // one Dims per program input, in declaration order

struct Case {
  std::string name;  // unique over all families; what unsupported/<kind>.txt names
  std::string tile;
  std::vector<ShapeSet> shapes;
  // Per input; a single entry applies to every input.
  std::vector<DType> dtypes = {DType::F32};
  // Per input; empty: testing::RandomOptions defaults; a single entry applies to every input.
  std::vector<testing::RandomOptions> ranges;
  // Float outputs only; integers and bool always compare exactly.
  std::optional<testing::Tolerance> tolerance;
};

struct Family {
  std::string name;  // "contractions", ...
  std::vector<Case> cases;
};

// Value ranges used by many cases.
inline testing::RandomOptions range(double lo, double hi) { return {lo, hi, -8, 8}; }
inline testing::RandomOptions int_range(int64_t lo, int64_t hi) { return {-1, 1, lo, hi}; }

// The families, one per cases_*.cc file.
Family contraction_cases();
Family convolution_cases();
Family pooling_reduction_cases();
Family elementwise_cases();
Family dtype_cases();
Family structural_cases();
Family edge_cases();

std::vector<Family> all_families();

}  // namespace plaidml::conformance
