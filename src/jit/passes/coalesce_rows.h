// coalesce-rows (CPU): the two innermost loops of a kernel's band become one when every access
// sees them as one index: a 1x1 stride-1 convolution over an H x W image (NHWC) reads and writes
// pixel (y, x) at (y * W + x) * C, so its rows are H * W pixels, not H image rows of W. The
// register tiles then meet one row edge in all (not one per image row: a 7-wide image in tiles
// of 4 leaves a 3-row edge every 7 rows), and a parallel loop over pixels splits evenly across
// threads where 7 or 14 image rows do not.
//
// The band's loops a (outer, [0, A)) and b (inner, [0, B)), b the only statement of a, become
// one loop p over [0, A * B) with b := p and a := 0, when a and b appear only in load and store
// indices that are affine with coeff(a) == B * coeff(b), never in bounds, guards or values.
// Other kernels are returned unchanged.
#pragma once

#include "jit/loop/loop_ir.h"
#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

loop::Kernel coalesce_rows(const loop::Kernel& kernel, const CpuTarget& target);

}  // namespace plaidml::jit::passes
