// register-block (CPU): a row-form contraction (jit/lower/lower_contraction.cc) keeps a tile of
// RM output rows x NV vectors in vector registers while its reduction runs, instead of reading
// and writing the output row in memory at every reduction step.
//
// The pattern, below the kernel's band (the parallel loop and the independent loops nested in
// it), whose innermost loop X walks output rows:
//   for x { [for j { S[o] = init }]  <chain of reduction loops and guards>
//             { for j { S[o] = agg(S[o], v) } }  [for j { S[o] = epilogue(S[o]) }] }
// where o is affine with coefficient 1 in j, agg is +, *, max or min on F32/F64, and v reads its
// inputs with stride 0 or 1 along j. It becomes
//   for x0 step RM { for j0 step NV*VL {
//       acc[r][c] = init (vector)           r < RM, c < NV
//       <chain> { acc[r][c] = agg(acc[r][c], v at x0 + r, j0 + c*VL) }
//       S[o] = epilogue(acc[r][c]) } }
// with smaller tiles for the row and column edges and scalar code for the last j < VL.
// Guards on x: when a guard holds at both ends of the tile's rows it holds for all of them (the
// guards are conjunctions of affine inequalities, so the rows that pass form an interval), and
// the whole tile runs unguarded; otherwise each row runs under its own guard. So interior tiles
// pay one test per guard level and no per-element test.
// With `slots` (the program's), a column operand that is a constant may be read from a packed
// copy (weight_packing.h): its slot is appended to `slots` and the kernel reads that instead.
// Kernels that do not match are returned unchanged.
#pragma once

#include <vector>

#include "jit/loop/loop_ir.h"
#include "jit/lower/lower.h"
#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

loop::Kernel register_block(const loop::Kernel& kernel, const CpuTarget& target,
                            std::vector<BufferSlot>* slots = nullptr);

}  // namespace plaidml::jit::passes
