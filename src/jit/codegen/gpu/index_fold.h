// Index arithmetic that mapping loops to work-items leaves behind, folded before the emitters
// print it. A flattened band or m group decodes each loop's value with / and % (bind_m,
// uniform_band_values); a load that walks those loops' dims contiguously then multiplies the
// pieces back: ((m / 14) / 14) * 50176 + ((m / 14) % 14) * 3584 + (m % 14) * 256 is m * 256.
// The rule is (a / c) * (c * s) + (a % c) * s == a * s, C's identity a == (a / c) * c + a % c
// for truncating division (the loop IR's), exact for every a: no range is assumed.
#pragma once

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::gpu {

// `e` with every i64 sum in it folded by the rule above (terms of equal operands merged,
// constants gathered); other expressions are rebuilt around folded operands only.
loop::ExprPtr fold_index(const loop::ExprPtr& e);

// Every expression of the kernel's statements folded (fold_index).
void fold_indices(GpuKernel& kernel);

}  // namespace plaidml::jit::gpu
