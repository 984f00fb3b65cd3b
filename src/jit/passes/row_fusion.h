// row-fusion (CPU, a pass over the program's kernel list): consecutive kernels that work row by
// row over the same rows become one kernel whose parallel loop runs the rows, each row running
// the kernels' bodies in their order. A softmax lowers to six kernels (max init, max, exp, sum
// init, sum, scale) that each read or write the whole score matrix; fused, a row's scores are
// read from memory once and stay in L1 through the four steps. Layer normalization the same.
//
// Rows. A kernel's row loops are the loops perfectly nested from its parallel loop, each from 0
// in steps of 1 to a constant. A group of kernels fuses over R rows when every member's row
// loops can be cut into the same mixed-radix digits r_1..r_q (extents multiplying to R; a loop
// whose extent goes past R keeps its remainder as an inner loop): a softmax's max kernel has row
// loops 12 x 128, its exp kernel 12 x 128 x 128 and its init kernel 1536, and all three fuse over
// 1536 rows of digits 12 x 128.
//
// Legality. The fused kernel runs row r of every member before row r + 1 of any, so no element
// may be touched by two rows: for every slot that a member writes, every access to it in the group
// has an index affine in the digits and in inner loop variables with constant bounds, with the
// same digit coefficients, and those coefficients lay the rows out in disjoint slices
// (mixed radix: each at least the span of everything inside it). Then each element is touched by
// one row only, in the members' order, as before. Slots the group only reads are free.
//
// Only groups in which a member reads what an earlier member wrote are fused (otherwise nothing
// stays in cache), never fewer rows than 4 per thread unless the members had no more, and never
// a kernel with vectors (the register-blocked contractions, whose loops are their own schedule).
// Rows keep the members' inner loops: a cut falls between two loops of a nest (a flat kernel's
// one loop may be cut, leaving 8 or more elements per row), and rows of one element each are
// refused where they would take several digits (a division per element, no vectors: MobileNetV3's
// activations fused over 200,704 one-element rows ran at 2 GFLOP/s, over its 112 image rows
// they vectorize).
// Kernels of targets without vectors (GPUs) are left alone.
#pragma once

#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"
#include "jit/passes/cpu_target.h"

namespace plaidml::jit::passes {

// Replaces runs of fusable kernels of `kernels` (in execution order) by fused ones; returns one
// line per fused kernel naming its members and rows, for the pipeline's dump.
std::vector<std::string> fuse_rows(std::vector<loop::Kernel>& kernels, const CpuTarget& target);

}  // namespace plaidml::jit::passes
