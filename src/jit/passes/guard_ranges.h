// Jigsaw splitting of index ranges (PlaidML v0's idea): the part of a row variable's range where
// every guard of a reduction holds for all values the reduction's loop variables take. Rows in
// that interior need no guard at all; only the border rows (a padded convolution's first and
// last output columns) see guards that fail.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::passes {

// Inclusive value range of a loop variable.
using VarRanges = std::map<std::string, std::pair<int64_t, int64_t>>;

// [a, b) within [lo, hi) where each guard (a conjunction of affine comparisons on x and the
// variables of `ranges`) holds for every x in it and every value of those variables; a == b
// when there is no such row. nullopt when a guard has another form or reads other variables.
std::optional<std::pair<int64_t, int64_t>> unguarded_range(const std::vector<loop::ExprPtr>& guards,
                                                           const std::string& x, int64_t lo,
                                                           int64_t hi, const VarRanges& ranges);

}  // namespace plaidml::jit::passes
