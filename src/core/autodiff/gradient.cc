// The driver: checks the request, marks the nodes on a path from a `wrt` input to the loss,
// sweeps them in reverse topological order (node ids descend: operands precede users) summing
// each node's adjoint contributions and applying its rule, then appends one output per input.
#include "core/autodiff/gradient.h"

#include <set>
#include <string>
#include <vector>

#include "core/autodiff/grad_context.h"
#include "core/ir/builder.h"
#include "core/types/dtype.h"

namespace plaidml::autodiff {

using detail::GradContext;
using ir::ValueId;

namespace {

std::vector<ValueId> operands_of(const ir::Node& n) {
  switch (n.kind) {
    case ir::NodeKind::kInput:
    case ir::NodeKind::kLiteral:
    case ir::NodeKind::kConstant:
      return {};
    case ir::NodeKind::kElementwise:
      return n.operands;
    case ir::NodeKind::kContraction: {
      std::vector<ValueId> ops;
      for (const auto& in : n.contraction.inputs) ops.push_back(in.tensor);
      if (n.contraction.default_value) ops.push_back(*n.contraction.default_value);
      return ops;
    }
  }
  return {};
}

// The operands whose values (not only their shapes) the node's value depends on: index(X, axis)
// and shape(X) read only X's shape, scatter(E, I, V) only V's. Such an operand is a constant for
// differentiation, so one-hot masks and iotas built from a wrt input need no gradient.
std::vector<ValueId> value_operands(const ir::Node& n) {
  if (n.kind == ir::NodeKind::kElementwise) {
    if (n.op == ir::OpKind::Index || n.op == ir::OpKind::ShapeOf) return {};
    if (n.op == ir::OpKind::Scatter) return {n.operands[0], n.operands[1]};
  }
  return operands_of(n);
}

// Nodes whose values depend on some wrt input and that the loss depends on.
std::vector<bool> relevant_nodes(const ir::Program& p, ValueId loss,
                                 const std::vector<ValueId>& wrt) {
  std::vector<bool> from_wrt(p.nodes.size(), false), to_loss(p.nodes.size(), false);
  for (ValueId w : wrt) from_wrt[w] = true;
  for (size_t id = 0; id < p.nodes.size(); ++id) {
    for (ValueId v : value_operands(p.nodes[id])) from_wrt[id] = from_wrt[id] || from_wrt[v];
  }
  to_loss[loss] = true;
  for (ValueId id = loss; id >= 0; --id) {
    if (!to_loss[id]) continue;
    for (ValueId v : operands_of(p.nodes[id])) to_loss[v] = true;
  }
  std::vector<bool> both(p.nodes.size());
  for (size_t k = 0; k < both.size(); ++k) both[k] = from_wrt[k] && to_loss[k];
  return both;
}

Expected<std::vector<ValueId>> find_inputs(const ir::Program& p,
                                           const std::vector<std::string>& wrt) {
  std::vector<ValueId> ids;
  std::set<std::string> seen;
  for (const auto& name : wrt) {
    auto id = p.find_input(name);
    if (!id) return make_error(StatusCode::kNotFound, "gradient: unknown input '{}'", name);
    if (!seen.insert(name).second) {
      return make_error(StatusCode::kInvalidArgument, "gradient: input '{}' is listed twice", name);
    }
    const auto& dtype = p.nodes[*id].input_dtype;
    if (dtype && !dtype_is_float(*dtype)) {
      return make_error(StatusCode::kInvalidArgument,
                        "gradient: input '{}' is declared {}; only float inputs have a gradient",
                        name, dtype_name(*dtype));
    }
    ids.push_back(*id);
  }
  return ids;
}

// The sum of a node's contributions (adjoints of a value used several times add up).
ValueId sum_parts(GradContext& cx, const std::vector<ValueId>& parts) {
  ValueId g = parts.at(0);
  for (size_t k = 1; k < parts.size(); ++k) g = cx.call("add", {g, parts[k]});
  return g;
}

Status sweep(GradContext& cx, ValueId loss, std::vector<ValueId>* adjoint) {
  for (ValueId id = loss; id >= 0; --id) {
    if (!cx.relevant(id) || cx.parts(id).empty()) continue;
    ValueId g = sum_parts(cx, cx.parts(id));
    (*adjoint)[id] = g;
    ir::Node n = cx.node(id);
    switch (n.kind) {
      case ir::NodeKind::kInput:
      case ir::NodeKind::kLiteral:
      case ir::NodeKind::kConstant:
        break;
      case ir::NodeKind::kElementwise:
        PLAIDML_TRY(detail::elementwise_rule(cx, id, g));
        break;
      case ir::NodeKind::kContraction:
        PLAIDML_TRY(detail::contraction_rule(cx, id, g));
        break;
    }
    PLAIDML_TRY(cx.status());
  }
  return cx.status();
}

// The gradient of input `id` as a node of its own, in the declared dtype when there is one.
ValueId output_value(GradContext& cx, ValueId id, ValueId adjoint, std::set<ValueId>* used) {
  ir::SymbolicDims dims = cx.dims(id);
  ValueId g = adjoint >= 0 ? adjoint : cx.fill(0.0, dims);
  if (used->count(g)) g = cx.copy(g, dims);
  const auto& dtype = cx.node(id).input_dtype;
  if (dtype == DType::BF16) {
    g = cx.call("as_bfloat", {g}, {ir::IntExpr::literal(16)});
  } else if (dtype) {
    g = cx.call("as_float", {g}, {ir::IntExpr::literal(dtype_bits(*dtype))});
  }
  used->insert(g);
  return g;
}

}  // namespace

Expected<std::shared_ptr<const ir::Program>> gradient(const ir::Program& program,
                                                      const std::string& loss,
                                                      const std::vector<std::string>& wrt,
                                                      const std::vector<std::string>& grad_names) {
  auto out = program.find_output(loss);
  if (!out) {
    return make_error(StatusCode::kNotFound, "gradient: unknown loss '{}' (not an output)", loss);
  }
  if (!grad_names.empty() && grad_names.size() != wrt.size()) {
    return make_error(StatusCode::kInvalidArgument,
                      "gradient: {} gradient names given for {} inputs", grad_names.size(),
                      wrt.size());
  }
  PLAIDML_ASSIGN(std::vector<ValueId> inputs, find_inputs(program, wrt));
  ValueId loss_id = program.outputs[*out].second;
  ir::ProgramBuilder builder(program);
  PLAIDML_ASSIGN(ir::SymbolicDims loss_dims, builder.dims_of(loss_id));
  if (!loss_dims.empty()) {
    return make_error(StatusCode::kTypeError,
                      "gradient: loss '{}' has rank {}; a gradient needs a scalar output (reduce "
                      "it first)",
                      loss, loss_dims.size());
  }
  GradContext cx(builder, loss_id, relevant_nodes(program, loss_id, inputs));
  std::vector<ValueId> adjoint(program.nodes.size(), -1);
  if (cx.relevant(loss_id)) cx.emit(loss_id, cx.fill(1.0, {}));
  PLAIDML_TRY(sweep(cx, loss_id, &adjoint));
  std::set<ValueId> used;
  for (size_t k = 0; k < inputs.size(); ++k) {
    ValueId g = output_value(cx, inputs[k], adjoint[inputs[k]], &used);
    PLAIDML_TRY(cx.status());
    std::string name = grad_names.empty() ? wrt[k] + "_grad" : grad_names[k];
    PLAIDML_TRY(builder.assign(name, g, ir::SourceLoc{0, 0, "gradient"}));
    PLAIDML_TRY(builder.add_output(name, ir::SourceLoc{0, 0, "gradient"}));
  }
  return builder.finish();
}

}  // namespace plaidml::autodiff
