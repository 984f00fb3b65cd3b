// Short reduction loops merged for the tiled GPU kernel (tiled_kernel.h). The tiled kernel
// stages the innermost reduction loop k in chunks, two barriers each, and runs the loops outside
// k serially: a convolution over 3 input channels (ResNet's 7x7 stem) stages chunks of 3 terms,
// 49 times. Merging k with the loops around it into one loop (kk over the product of their
// trips, each variable decoded by / and %: j = kk / 3, ci = kk % 3) keeps the reference's order
// of terms exactly (the outer loop stays the slower digit) and gives the stem one k of 147.
// An `if` between two merged loops (a padding guard on j) moves inside the merged loop, as a
// guard that reads k: the merge is kept only where the tiled plan zero-fills such guards
// (TiledPlan::zero_fill), which costs them nothing per point; the schedule decides that.
#pragma once

#include <cstdint>
#include <optional>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::gpu {

// Merging starts where the innermost reduction loop is shorter than one staged chunk
// (kMergeBelow: the tile search's chunks are 8 to 32 terms) and goes on while the merged loop
// runs fewer than kMergeUntil trips: 3 channels merge with a 7x7 window into 147 terms, while
// a conv over 16 or more channels keeps its loops (its chunks are full already).
inline constexpr int64_t kMergeBelow = 16;
inline constexpr int64_t kMergeUntil = 64;

// `kernel` with the innermost reduction loop of its register form (contraction_match.h)
// merged with the loops around it as above, where its parent on the path is a loop (or an `if`
// inside one); nullopt where nothing merges.
std::optional<loop::Kernel> merge_short_reductions(const loop::Kernel& kernel);

}  // namespace plaidml::jit::gpu
