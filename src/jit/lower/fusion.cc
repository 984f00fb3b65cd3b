#include "jit/lower/fusion.h"

#include <algorithm>

namespace plaidml::jit {
namespace {

// Consumers of each node (one entry per consumer node) and whether it is a program output.
struct Uses {
  std::vector<std::vector<ir::ValueId>> consumers;
  std::vector<bool> is_output;
};

void add_use(Uses& uses, ir::ValueId used, ir::ValueId user) {
  auto& list = uses.consumers[used];
  if (list.empty() || list.back() != user) list.push_back(user);
}

Uses find_uses(const ir::Program& program) {
  Uses uses{std::vector<std::vector<ir::ValueId>>(program.nodes.size()),
            std::vector<bool>(program.nodes.size(), false)};
  for (size_t n = 0; n < program.nodes.size(); ++n) {
    const ir::Node& node = program.nodes[n];
    auto user = static_cast<ir::ValueId>(n);
    for (ir::ValueId operand : node.operands) add_use(uses, operand, user);
    if (node.kind != ir::NodeKind::kContraction) continue;
    for (const auto& input : node.contraction.inputs) add_use(uses, input.tensor, user);
    if (node.contraction.default_value) add_use(uses, *node.contraction.default_value, user);
  }
  for (const auto& [name, id] : program.outputs) uses.is_output[id] = true;
  return uses;
}

bool is_scalar_elementwise(const ir::Program& program, ir::ValueId v) {
  const ir::Node& node = program.nodes[v];
  return node.kind == ir::NodeKind::kElementwise &&
         ir::op_category(node.op) != ir::OpCategory::kStructural;
}

bool joins_chain(const ir::BoundProgram& bound, ir::ValueId consumer, ir::ValueId head) {
  return is_scalar_elementwise(*bound.program, consumer) &&
         bound.nodes[consumer].shape.dims == bound.nodes[head].shape.dims;
}

// The one use of v, or -1 when v has several uses or is a program output.
ir::ValueId single_consumer(const Uses& uses, ir::ValueId v) {
  if (uses.is_output[v] || uses.consumers[v].size() != 1) return -1;
  return uses.consumers[v][0];
}

}  // namespace

FusionPlan plan_fusion(const ir::BoundProgram& bound,
                       const std::function<bool(ir::ValueId, ir::ValueId)>& fusable) {
  const ir::Program& program = *bound.program;
  FusionPlan plan;
  plan.host.assign(program.nodes.size(), -1);
  Uses uses = find_uses(program);
  for (size_t n = 0; n < program.nodes.size(); ++n) {
    auto c = static_cast<ir::ValueId>(n);
    if (program.nodes[c].kind != ir::NodeKind::kContraction) continue;
    std::vector<ir::ValueId> chain;
    ir::ValueId next = single_consumer(uses, c);
    while (next >= 0 && plan.host[next] < 0 && joins_chain(bound, next, c) &&
           chain.size() < kMaxFusedDepth) {
      chain.push_back(next);
      next = single_consumer(uses, next);
    }
    if (chain.empty() || !fusable(c, chain.back())) continue;
    plan.host[c] = c;
    for (ir::ValueId u : chain) plan.host[u] = c;
    plan.epilogue[c] = std::move(chain);
  }
  plan.inlined.assign(program.nodes.size(), false);
  // Nodes on the longest path of inlined operands down from each node, itself included.
  std::vector<size_t> depth(program.nodes.size(), 1);
  for (size_t n = 0; n < program.nodes.size(); ++n) {
    auto v = static_cast<ir::ValueId>(n);
    for (ir::ValueId operand : program.nodes[v].operands) {
      if (plan.inlined[operand]) depth[v] = std::max(depth[v], depth[operand] + 1);
    }
    if (plan.host[v] >= 0 || !is_scalar_elementwise(program, v)) continue;
    ir::ValueId consumer = single_consumer(uses, v);
    plan.inlined[v] = consumer >= 0 && joins_chain(bound, consumer, v) && depth[v] < kMaxFusedDepth;
  }
  return plan;
}

}  // namespace plaidml::jit
