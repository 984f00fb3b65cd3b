// split-reduction (CPU): a float max or min reduction loop, `for j { T = max(T, v) }` with T a
// local or one memory element that j does not move, becomes eight independent chains that a
// final step combines. Run serially, each update waits for the previous one (a softmax's max
// over 128 columns: 128 dependent maxes per row); eight chains overlap, and LLVM's SLP
// vectorizer makes one vector max of eight consecutive loads. LLVM's loop vectorizer would not:
// it vectorizes a max reduction only under "no NaNs", which inputs do not promise.
//
// Exact, NaN included: max and min (maxnum, minnum) are associative and commutative, and every
// chain starts from T's value (maxnum(T, T) = T), so the combined result is the serial one.
// Sums are left to LLVM (llvm_kernel.cc lets their adds reassociate); other loops are unchanged.
#pragma once

#include "jit/loop/loop_ir.h"
#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

inline constexpr int kReductionChains = 8;

loop::Kernel split_reduction(const loop::Kernel& kernel, const CpuTarget& target);

}  // namespace plaidml::jit::passes
