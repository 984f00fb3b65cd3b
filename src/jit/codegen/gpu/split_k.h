// Split-K for GPU contractions whose output is too small to fill the device and whose
// reduction is long (GPT-2's MLP down-projection: 128 x 768 outputs, 3072 terms each): one
// workgroup per output tile would leave most compute units idle and run each tile's 3072
// steps in sequence. The kernel becomes two:
//   partial: for s in [0, S), every output point:
//              acc = 0; for k in [0, K/S): acc += term(s * K/S + k); T[s, point] = acc
//            (S times the points, one temporary slot)
//   combine: every output point: acc = init; for s in [0, S): acc += T[s, point]; epilogue
// The partial kernel is a contraction like the original, tiled with S workgroups along grid
// dimension 2; the combine kernel carries the original epilogue (bias, activation). Only f32
// sums (+ aggregation of f32 terms) split: the sum's order changes (as tiling and FMA
// contraction already change it, within the tolerances docs/devices.md states), never its
// terms. Run on the lowered program for GPU devices, before scheduling (jit/compiler.cc).
#pragma once

#include <cstdint>

#include "jit/lower/lower.h"

namespace plaidml::jit::gpu {

// Splits are made where the reduction has at least this many trips...
inline constexpr int64_t kSplitMinReduction = 512;
// ... and the output has at most this many points per compute unit: BERT's and GPT-2's 128-row
// projections over 768 features (745 to 2,978 points per unit on the H200's 132) ran 1.1-1.5x
// faster split 6 ways (bench/RESULTS.md, issue 36, sixth session).
inline constexpr int64_t kSplitMaxPointsPerUnit = 4096;
// Each part sums at least this many terms.
inline constexpr int64_t kSplitMinPart = 128;

// The split factor for a contraction of `points` outputs over `k` terms on `compute_units`
// units: 0 for no split, else the largest of 8, 6, 4, 3 and 2 that divides k into parts of at
// least kSplitMinPart terms.
int split_factor(int64_t points, int64_t k, int compute_units);

// `lowered` with every such kernel split in two (a temporary slot added per split kernel).
void split_long_reductions(LoweredProgram& lowered, int compute_units);

}  // namespace plaidml::jit::gpu
