// Epilogue fusion: elementwise consumers of a contraction computed in the contraction's own
// store, so the contraction's result (and every intermediate of the chain) is never written
// to memory. C = +(A*B); O = relu(C + bias) becomes one kernel storing relu(acc + bias[j]).
//
// A chain grows from a contraction c through nodes u1, u2, ... while:
//  - the previous node has exactly one use (one consumer node, not a program output) and
//    that consumer is the next elementwise, non-structural node of the chain;
//  - the consumer has c's dims (its other operands may broadcast into them);
//  - c writes every output element once (the caller's test, given c and the chain's end): the
//    register form computes the chain in its store; the row form (CPU) accumulates in the
//    chain end's buffer and applies the chain in place when the row is complete.
// The fused kernel is emitted at the chain's last node, where every other operand of the chain
// has been computed; c and the intermediate nodes get no buffer.
//
// Elementwise inlining: an elementwise node outside any chain whose one use is an elementwise
// consumer of the same dims is computed inside that consumer's expression (exp(X) + sin(X) * X
// is one kernel, not four). Inlined nodes get no buffer and no kernel.
//
// Both stop at kMaxFusedDepth nodes: a fused kernel's expression is a tree as deep as the
// chain plus its inlined operands, and every later walk of it (lowering, the loop passes, the
// printer, the code generators) recurses once per level. A longer run of elementwise ops
// (a 100,000-term A + A + ... + A) becomes a sequence of kernels, each reading the last one's
// result: one more memory round trip per 64 ops, which such a run's arithmetic dwarfs.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "core/ir/bind.h"

namespace plaidml::jit {

inline constexpr size_t kMaxFusedDepth = 64;

struct FusionPlan {
  // Per contraction with an epilogue: its elementwise consumers in order; the last one is
  // the value stored.
  std::map<ir::ValueId, std::vector<ir::ValueId>> epilogue;
  // Per node: the contraction whose kernel computes it, or -1 (a contraction with an epilogue
  // maps to itself).
  std::vector<ir::ValueId> host;
  // Per node: computed inside its one consumer's expression.
  std::vector<bool> inlined;

  // No buffer and no kernel of its own.
  bool absorbed(ir::ValueId v) const {
    return inlined[v] || (host[v] >= 0 && !is_chain_end(v));
  }
  bool is_chain_end(ir::ValueId v) const {
    if (host[v] < 0) return false;
    const auto& chain = epilogue.at(host[v]);
    return !chain.empty() && chain.back() == v;
  }
};

// fusable(c, last): whether contraction c can carry the epilogue chain ending at `last`
// (lower_contraction.cc decides).
FusionPlan plan_fusion(const ir::BoundProgram& bound,
                       const std::function<bool(ir::ValueId, ir::ValueId)>& fusable);

}  // namespace plaidml::jit
