// Structural ops of the reference interpreter: reshape, index, shape, gather, scatter and the
// taus88 random number generator (prng_*), with the shapes bind gives them.
//
//  - reshape(X, d...): the same elements in row-major order.
//  - index(X, axis): each element's coordinate along `axis`.
//  - shape(X): X's dims.
//  - gather(V, I): O[i..., j...] = V[clamp(I[i...]), j...]; the index is truncated to an
//    integer and clamped into [0, V.dims[0] - 1].
//  - scatter(E, I, V): O has bind's shape ([V.dims[0]] + E.dims[I.rank:]), starts at zero, and
//    O[clamp(I[i...]), j...] += E[i..., j...] (duplicate indices accumulate).
//  - prng_step(S, d...): S is the u32 state [3, 2048] of 2048 taus88 generators (PlaidML v0's
//    generator and schedule): generator g steps once for each flat position g, g + 2048,
//    g + 4096, ... of a tensor of dims d and writes its draw s1 ^ s2 ^ s3 there. The step's
//    value is those u32 draws; prng_value gives f32 draws scaled into [0, 1) as
//    (draw >> 8) * 2^-24 (exact in f32; v0's draw / 2^32 in float could round up to 1.0);
//    prng_state gives the state after each generator's last step.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/eval/values.h"
#include "core/ir/ops.h"

namespace plaidml::eval {

constexpr int64_t kPrngGenerators = 2048;

struct StructuralSpec {
  ir::OpKind op;
  DType result_dtype;
  std::vector<int64_t> dims;      // result dims
  std::vector<int64_t> int_args;  // evaluated Node::int_args
};

// operands: the op's operands. For prng_state / prng_value, operands[0] is the prng_step's
// state operand and int_args the prng_step's dims (the interpreter looks through the step).
Expected<Tensor> eval_structural(const StructuralSpec& spec,
                                 const std::vector<const Tensor*>& operands);

struct PrngResult {
  Tensor state;  // u32 [3, 2048]
  Tensor draws;  // u32 dims
};
// u32 draws -> f32 in [0, 1): (draw >> 8) * 2^-24.
Tensor prng_scale(const Tensor& draws);
Expected<PrngResult> prng_run(const Tensor& state, const std::vector<int64_t>& dims);

}  // namespace plaidml::eval
