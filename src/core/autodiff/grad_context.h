// Shared state of one gradient() call (private to src/core/autodiff): the builder that extends
// the program, which nodes lie on a path from a `wrt` input to the loss, and the adjoint
// contributions collected for each node. The emitters latch the first error (like OpCall), so
// the rules read as straight-line formulas; the driver checks `status` after each rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/ir/builder.h"
#include "core/ir/program.h"
#include "core/ir/symbolic_shape.h"

namespace plaidml::autodiff::detail {

using ir::ValueId;

class GradContext {
 public:
  GradContext(ir::ProgramBuilder& builder, ValueId loss, std::vector<bool> relevant)
      : builder_(builder), loss_(loss), relevant_(std::move(relevant)), parts_(relevant_.size()) {}

  // A copy: the builder's node vector grows while rules run.
  ir::Node node(ValueId id) const { return builder_.program().nodes.at(id); }
  bool relevant(ValueId id) const {
    return id >= 0 && static_cast<size_t>(id) < relevant_.size() && relevant_[id];
  }
  const std::vector<ValueId>& parts(ValueId id) const { return parts_.at(id); }

  // Latching builders: after the first error they do nothing and return -1.
  ValueId call(std::string_view fn, std::vector<ValueId> args,
               std::vector<ir::IntExprPtr> int_args = {});
  ValueId lit(double v);
  ValueId contract(ir::Contraction c);
  ir::SymbolicDims dims(ValueId id);
  // A tensor of `dims` filled with `value`, in the loss's dtype: an empty `+` contraction over
  // the loss (its one index ranges over 0 <= z < 0) whose default is the value.
  ValueId fill(double value, const ir::SymbolicDims& dims);
  // An identity contraction: a fresh node holding g's values (an output needs its own node).
  ValueId copy(ValueId g, const ir::SymbolicDims& dims);

  // Adds `g` (already of the operand's dims) to the adjoint of `operand`, if it is relevant.
  void emit(ValueId operand, ValueId g);
  // The same for a gradient of the broadcast result dims `gdims`: summed to the operand's dims.
  void emit_reduced(ValueId operand, ValueId g, const ir::SymbolicDims& gdims);

  void fail(Status s) {
    if (status_.is_ok()) status_ = std::move(s);
  }
  bool ok() const { return status_.is_ok(); }
  const ir::Program& builder_program() const { return builder_.program(); }
  const Status& status() const { return status_; }

 private:
  ir::ProgramBuilder& builder_;
  ValueId loss_;
  std::vector<bool> relevant_;
  std::vector<std::vector<ValueId>> parts_;
  Status status_;
};

// How a node is written in a gradient error: "'T' = cmp_lt(X, 0)".
std::string describe_node(const ir::Program& program, ValueId id);

// The rules: each adds the node's contributions to its operands' adjoints, given the node's
// adjoint g (of the node's dims). Errors name the node.
Status elementwise_rule(GradContext& cx, ValueId id, ValueId g);
Status contraction_rule(GradContext& cx, ValueId id, ValueId g);
// reshape, gather, scatter; the other structural ops have no gradient.
Status structural_rule(GradContext& cx, ValueId id, ValueId g);
Status not_differentiable(GradContext& cx, ValueId id, std::string_view why);

}  // namespace plaidml::autodiff::detail
