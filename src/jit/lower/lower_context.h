// Shared state of one lower() call: the buffer plan (node -> slot), the kernels emitted so far,
// and the helpers every node lowering uses (operand loads with numpy broadcasting, literal
// inlining, loop nests over a shape). Internal to src/jit/lower.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <map>

#include "jit/loop/loop_ir.h"
#include "jit/lower/fusion.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

class LowerContext {
 public:
  LowerContext(const ir::BoundProgram& bound, const LowerOptions& options);
  const LowerOptions& options() const { return options_; }
  const FusionPlan& fusion() const { return fusion_; }

  const ir::BoundProgram& bound() const { return bound_; }
  const ir::Node& node(ir::ValueId v) const { return bound_.program->nodes[v]; }
  const ir::BoundNode& bnode(ir::ValueId v) const { return bound_.nodes[v]; }
  LoweredProgram& out() { return out_; }

  // The dtype a node's values are kept in: its shape's dtype, except weak values (ops on
  // literals only), which stay in the widest type of their domain until a typed consumer
  // converts them (as the reference interpreter does).
  DType value_dtype(ir::ValueId v) const;
  std::vector<int64_t> dims(ir::ValueId v) const { return bnode(v).shape.dims; }

  // Slot of a node, -1 for literals (inlined as constants).
  int slot_of(ir::ValueId v) const { return node_slot_[v]; }
  int add_slot(BufferSlot::Role role, int index, Shape shape);
  DType slot_dtype(int slot) const { return out_.slots[slot].shape.dtype; }

  // The value of node v at element `index` (row-major linear index into v), converted to
  // `dtype`. Literals become constants.
  loop::ExprPtr value_at(ir::ValueId v, loop::ExprPtr index, DType dtype) const;
  // A literal node's value as a constant of `dtype`.
  loop::ExprPtr literal(ir::ValueId v, DType dtype) const;

  // Linear index into a tensor of dims `from` read while iterating a tensor of dims `to` at
  // coordinates `coords` (one per dim of `to`), with numpy broadcasting.
  static loop::ExprPtr broadcast_index(const std::vector<int64_t>& from,
                                       const std::vector<int64_t>& to,
                                       const std::vector<loop::ExprPtr>& coords);
  // Row-major linear index of `coords` in dims.
  static loop::ExprPtr linear_index(const std::vector<int64_t>& dims,
                                    const std::vector<loop::ExprPtr>& coords);

  // A loop nest over every element of dims: `body(coords)` gives the innermost statements.
  // Dims of size 1 get no loop; the outermost real loop is parallel and every loop independent
  // (the body must store at `coords` only). prefix names the loop variables.
  loop::StmtPtr nest(const std::vector<int64_t>& dims, const std::string& prefix,
                     const std::function<std::vector<loop::StmtPtr>(
                         const std::vector<loop::ExprPtr>&)>& body) const;

  // Appends a kernel named after node v ("k<n>_<name>"), computing reads/writes and work.
  void add_kernel(ir::ValueId v, const std::string& suffix, loop::StmtPtr body, double work);
  void add_kernel(const std::string& base, loop::StmtPtr body, double work);
  std::vector<std::string> origins_of(ir::ValueId v) const;

 private:
  const ir::BoundProgram& bound_;
  LowerOptions options_;
  FusionPlan fusion_;
  LoweredProgram out_;
  std::vector<int> node_slot_;
  friend Expected<LoweredProgram> jit::lower(const ir::BoundProgram& bound,
                                             const LowerOptions& options);
};

// Per node kind (lower_elementwise.cc, lower_contraction.cc, lower_structural.cc).
Status lower_elementwise(LowerContext& cx, ir::ValueId v);
Status lower_contraction(LowerContext& cx, ir::ValueId v);
// Whether contraction v takes the register form writing every output element once, so that
// an elementwise epilogue can fuse into its store (fusion.h).
bool contraction_takes_epilogue(LowerContext& cx, ir::ValueId v, ir::ValueId last);
Status lower_structural(LowerContext& cx, ir::ValueId v);
// A copy of node `from` into `to_slot` (outputs that are inputs or repeat another output).
void lower_copy(LowerContext& cx, ir::ValueId from, int to_slot, const std::string& name);

// The scalar op of an elementwise node on already-loaded operands (in their value dtypes),
// converted to the node's dtype: the rules of the reference interpreter (eval/elementwise.h).
loop::ExprPtr scalar_op(ir::OpKind op, DType result, DType compute,
                        std::vector<loop::ExprPtr> args);
// Elementwise node v at output coordinates `coords` (in v's value dtype): operands found in
// `known` take that value (a fused producer's), the others are loaded with broadcasting.
loop::ExprPtr elementwise_value(const LowerContext& cx, ir::ValueId v,
                                const std::vector<loop::ExprPtr>& coords,
                                const std::map<ir::ValueId, loop::ExprPtr>& known);

}  // namespace plaidml::jit
