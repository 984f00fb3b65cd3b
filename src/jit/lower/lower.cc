// lower(): the buffer plan and the walk over the graph. One kernel per materialised node (a
// contraction may take two or three: init, accumulate, round; a contraction with a fused
// elementwise epilogue is one kernel for the whole chain); literals are inlined into their
// consumers and never get a buffer.
#include "jit/lower/lower.h"

#include "jit/lower/lower_context.h"

namespace plaidml::jit {
namespace {

// A reshape keeps row-major order: element k of its result is element k of its operand, so
// the result can be the operand's buffer itself (no copy kernel; BERT split each layer's
// queries, keys and values into heads through three copies of 384 KiB). Returns that slot, or
// -1: not a reshape, an operand without a buffer (a literal, a value computed in a register),
// another dtype, or a program output (which has its own buffer, assigned before).
int reshaped_slot(const LowerContext& cx, ir::ValueId v, const std::vector<int>& node_slot) {
  const ir::Node& node = cx.node(v);
  if (node.kind != ir::NodeKind::kElementwise || node.op != ir::OpKind::Reshape) return -1;
  if (node.operands.empty()) return -1;
  ir::ValueId operand = node.operands[0];
  if (node_slot[operand] < 0 || cx.value_dtype(operand) != cx.value_dtype(v)) return -1;
  return node_slot[operand];
}

// Inputs first, then constants, then outputs, then one temporary per other computed node. Returns, per output
// position, the node whose value must be copied into it (-1: the output is computed in place).
std::vector<ir::ValueId> plan_slots(LowerContext& cx, std::vector<int>& node_slot) {
  const ir::BoundProgram& bound = cx.bound();
  const ir::Program& program = *bound.program;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    node_slot[program.inputs[i]] =
        cx.add_slot(BufferSlot::Role::kInput, static_cast<int>(i), bound.input_shapes[i]);
  }
  for (size_t v = 0; v < program.nodes.size(); ++v) {
    if (program.nodes[v].kind != ir::NodeKind::kConstant) continue;
    node_slot[v] = cx.add_slot(BufferSlot::Role::kConstant, static_cast<int>(v),
                               program.nodes[v].constant->shape);
  }
  std::vector<ir::ValueId> copies;
  for (size_t o = 0; o < program.outputs.size(); ++o) {
    ir::ValueId v = program.outputs[o].second;
    int slot = cx.add_slot(BufferSlot::Role::kOutput, static_cast<int>(o), bound.output_shapes[o]);
    ir::NodeKind kind = program.nodes[v].kind;
    bool computed = kind != ir::NodeKind::kInput && kind != ir::NodeKind::kLiteral &&
                    kind != ir::NodeKind::kConstant;
    if (computed && node_slot[v] < 0 && bound.output_shapes[o].dtype == cx.value_dtype(v)) {
      node_slot[v] = slot;
      copies.push_back(-1);
    } else {
      copies.push_back(v);
    }
  }
  for (size_t v = 0; v < program.nodes.size(); ++v) {
    ir::NodeKind kind = program.nodes[v].kind;
    if (node_slot[v] >= 0 || kind == ir::NodeKind::kLiteral) continue;
    if (cx.fusion().absorbed(static_cast<ir::ValueId>(v))) continue;  // computed in a register
    if (int source = reshaped_slot(cx, static_cast<ir::ValueId>(v), node_slot); source >= 0) {
      node_slot[v] = source;  // a view: its readers read the operand's buffer
      continue;
    }
    Shape shape = bound.nodes[v].shape;
    shape.dtype = cx.value_dtype(static_cast<ir::ValueId>(v));
    node_slot[v] = cx.add_slot(BufferSlot::Role::kTemp, static_cast<int>(v), shape);
  }
  return copies;
}

Status lower_node(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  // A fused chain is one kernel, emitted at its last node (fusion.h).
  if (cx.fusion().absorbed(v)) return Status::ok();
  if (cx.fusion().is_chain_end(v)) return lower_contraction(cx, cx.fusion().host[v]);
  switch (node.kind) {
    case ir::NodeKind::kInput:
    case ir::NodeKind::kLiteral:
    case ir::NodeKind::kConstant: return Status::ok();
    case ir::NodeKind::kContraction: return lower_contraction(cx, v);
    case ir::NodeKind::kElementwise:
      if (ir::op_category(node.op) == ir::OpCategory::kStructural) {
        return lower_structural(cx, v);
      }
      return lower_elementwise(cx, v);
  }
  return Status::ok();
}

}  // namespace

Expected<LoweredProgram> lower(const ir::BoundProgram& bound, const LowerOptions& options) {
  if (!bound.program || bound.nodes.size() != bound.program->nodes.size()) {
    return Status(StatusCode::kInternal, "lower: the bound program does not match its program");
  }
  LowerContext cx(bound, options);
  cx.fusion_ = plan_fusion(bound, [&](ir::ValueId c, ir::ValueId last) {
    return contraction_takes_epilogue(cx, c, last);
  });
  std::vector<ir::ValueId> copies = plan_slots(cx, cx.node_slot_);
  for (size_t v = 0; v < bound.nodes.size(); ++v) {
    PLAIDML_TRY(lower_node(cx, static_cast<ir::ValueId>(v))
                    .with_context("while compiling '" + cx.node(static_cast<int>(v)).name + "': "));
  }
  const ir::Program& program = *bound.program;
  for (size_t o = 0; o < copies.size(); ++o) {
    if (copies[o] < 0) continue;
    int slot = -1;
    for (size_t s = 0; s < cx.out().slots.size(); ++s) {
      const BufferSlot& b = cx.out().slots[s];
      if (b.role == BufferSlot::Role::kOutput && b.index == static_cast<int>(o)) {
        slot = static_cast<int>(s);
      }
    }
    lower_copy(cx, copies[o], slot, program.outputs[o].first);
  }
  return std::move(cx.out_);
}

}  // namespace plaidml::jit
