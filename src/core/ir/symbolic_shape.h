// Symbolic shapes: the dims of every value as integer expressions over the inputs' dimension
// names, known while a program is being built (before any shape is bound). The op library and
// autodiff size their contractions with them, so the programs they make stay shape-polymorphic.
#pragma once

#include <optional>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::ir {

using SymbolicDims = std::vector<IntExprPtr>;

// Constant-folding constructors for size expressions (C integer semantics, docs/tile.md section 2):
// literals fold, x + 0, x * 1, max(x, x) and the like simplify, so printed programs stay short.
namespace size_expr {
IntExprPtr lit(int64_t v);
IntExprPtr add(IntExprPtr a, IntExprPtr b);
IntExprPtr sub(IntExprPtr a, IntExprPtr b);
IntExprPtr mul(IntExprPtr a, IntExprPtr b);
IntExprPtr div(IntExprPtr a, IntExprPtr b);       // C division (sizes); rational in indices
IntExprPtr floordiv(IntExprPtr a, IntExprPtr b);  // floor, an integer everywhere
IntExprPtr max(IntExprPtr a, IntExprPtr b);
IntExprPtr min(IntExprPtr a, IntExprPtr b);
std::optional<int64_t> literal_value(const IntExpr& e);
bool same(const IntExpr& a, const IntExpr& b);  // structurally equal
// The numpy broadcast of two sizes. When neither is the literal 1 and they are not the same
// expression, the result is max(a, b) * min(1, min(a, b)): right for every valid broadcast,
// including a size 0 against a size 1.
IntExprPtr broadcast(IntExprPtr a, IntExprPtr b);
}  // namespace size_expr

// a op b (or -a for kNeg, b unused), folded to a literal when both operands are literals and
// the result means the same in sizes and in index expressions (a division only when exact).
// Programs built by calls then carry `224` where `(224 + 6 - 7) / 2 + 1` would otherwise grow,
// and grow again at every broadcast of two such sizes.
IntExprPtr exact_binary(IntOp op, IntExprPtr a, IntExprPtr b, SourceLoc loc);

// The dims of node `id`, given the dims of every earlier node it uses (`known[k]` for node k).
// Inputs must have a known rank and named dims (ProgramBuilder::dims_of names unnamed dims
// first). Errors (kTypeError): an input of unknown rank, naming it.
Expected<SymbolicDims> symbolic_dims(const Program& program, ValueId id,
                                     const std::vector<std::optional<SymbolicDims>>& known);

}  // namespace plaidml::ir
