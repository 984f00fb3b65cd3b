// Binding: a Program plus concrete input shapes (dtypes and dims) gives a BoundProgram in which
// every node has a concrete Shape, every index expression is an exact Affine, and every
// contraction has its index ranges and residual constraints (bounds inference). This is where
// type checking, numpy broadcasting and dtype promotion happen. The reference interpreter and
// the JIT both consume a BoundProgram, so they agree on semantics by construction.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "core/poly/affine.h"
#include "core/poly/bounds.h"
#include "core/types/shape.h"

namespace plaidml::ir {

struct BoundContraction {
  AggOp agg = AggOp::kSum;
  CombOp comb = CombOp::kNone;
  // Every index variable: output indices first (in order of first appearance), then the rest.
  std::vector<std::string> indices;
  std::vector<poly::IndexRange> ranges;  // parallel to indices (tightest integer box)
  bool empty = false;                    // no valid point: output is all identity/default
  std::vector<poly::Affine> out_access;  // one per output dim
  std::vector<ValueId> inputs;           // tensor operands (1, 2 or 3)
  std::vector<std::vector<poly::Affine>> in_access;  // per input, one per dim
  // All validity conditions of a point: 0 <= access < size for every access dim (outputs and
  // inputs) and every user constraint. A point is valid iff it satisfies all of them and every
  // access is an integer (check Affine::denominator()).
  std::vector<poly::RangeConstraint> conditions;
  std::vector<poly::RangeConstraint> residual;  // the conditions the box does not imply
  std::optional<ValueId> default_value;
};

struct BoundNode {
  Shape shape;                 // result dtype and dims
  DType compute_dtype;         // dtype the op computes in (operands are converted to it)
  bool weak = false;           // an untyped literal (or an op on only literals)
  std::vector<int64_t> int_args;  // evaluated Node::int_args
  std::optional<BoundContraction> contraction;
};

struct BoundProgram {
  std::shared_ptr<const Program> program;
  std::vector<BoundNode> nodes;  // parallel to program->nodes
  std::map<std::string, int64_t> dims;
  std::vector<Shape> input_shapes;   // parallel to program->inputs
  std::vector<Shape> output_shapes;  // parallel to program->outputs
};

// Errors (all name the tensor / dim / expression and the source location):
//   wrong input count; rank mismatch with a declaration; one dim name bound to two sizes (names
//   both tensors and both sizes); declared dtype mismatch; broadcasting mismatch (names both
//   shapes and the expression); bitwise op on floats; non-positive or non-integer size;
//   unbounded index; reshape with a different element count; a failed assertion
//   (Program::assertions, kTypeError): its own message, its `{k}` filled with the bound sizes.
Expected<BoundProgram> bind(std::shared_ptr<const Program> program,
                            const std::vector<Shape>& input_shapes);

// The value of an integer kLiteral node: its literal, or the dim expression bound from the
// input shapes (a dim used as a value, `R = X / N`).
inline int64_t bound_literal_int(const BoundProgram& bound, ValueId id) {
  const Node& n = bound.program->nodes[id];
  const BoundNode& b = bound.nodes[id];
  return n.int_args.empty() ? n.literal_int : b.int_args.at(0);
}

// numpy broadcasting of two dim lists; nullopt if incompatible.
std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a,
                                                   const std::vector<int64_t>& b);

}  // namespace plaidml::ir
