#include "core/autodiff/grad_context.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "core/autodiff/reduce_to_shape.h"
#include "core/ir/printer.h"

namespace plaidml::autodiff::detail {

namespace {

// Gradient nodes say where they came from, like builder calls do.
ir::SourceLoc here() { return ir::SourceLoc{0, 0, "gradient"}; }

std::string operand_text(const ir::Program& p, ValueId id) {
  const ir::Node& n = p.nodes.at(id);
  if (n.kind != ir::NodeKind::kLiteral) return n.name;
  if (!n.int_args.empty()) return ir::print_int_expr(*n.int_args[0]);
  if (n.literal_is_float) return fmt::format("{}", n.literal_float);
  return std::to_string(n.literal_int);
}

}  // namespace

std::string describe_node(const ir::Program& program, ValueId id) {
  const ir::Node& n = program.nodes.at(id);
  if (n.kind != ir::NodeKind::kElementwise) return fmt::format("'{}'", n.name);
  std::vector<std::string> args;
  for (ValueId v : n.operands) args.push_back(operand_text(program, v));
  for (const auto& a : n.int_args) args.push_back(ir::print_int_expr(*a));
  return fmt::format("'{}' = {}({})", n.name, ir::op_name(n.op), fmt::join(args, ", "));
}

ValueId GradContext::call(std::string_view fn, std::vector<ValueId> args,
                          std::vector<ir::IntExprPtr> int_args) {
  if (!ok()) return -1;
  for (ValueId a : args) {
    if (a < 0) return -1;
  }
  auto r = builder_.add_call(std::string(fn), std::move(args), std::move(int_args), here());
  if (!r) return fail(r.status()), -1;
  return *r;
}

ValueId GradContext::lit(double v) {
  if (!ok()) return -1;
  return builder_.add_float_literal(v, here());
}

ValueId GradContext::contract(ir::Contraction c) {
  if (!ok()) return -1;
  for (const auto& in : c.inputs) {
    if (in.tensor < 0) return -1;
  }
  auto r = builder_.add_contraction(std::move(c), here());
  if (!r) return fail(r.status()), -1;
  return *r;
}

ir::SymbolicDims GradContext::dims(ValueId id) {
  if (!ok()) return {};
  auto r = builder_.dims_of(id);
  if (!r) return fail(r.status()), ir::SymbolicDims{};
  return *r;
}

ValueId GradContext::fill(double value, const ir::SymbolicDims& dims) {
  ir::Contraction c;
  for (size_t k = 0; k < dims.size(); ++k) {
    c.out_indices.push_back(ir::IntExpr::index("i" + std::to_string(k)));
  }
  c.out_sizes = dims;
  c.inputs.push_back(ir::TensorAccess{loss_, {}, {}});
  c.constraints.push_back(ir::UserConstraint{ir::IntExpr::index("z"), ir::IntExpr::literal(0), {}});
  if (value != 0.0) c.default_value = lit(value);
  return contract(std::move(c));
}

ValueId GradContext::copy(ValueId g, const ir::SymbolicDims& dims) {
  ir::Contraction c;
  ir::TensorAccess in{g, {}, {}};
  for (size_t k = 0; k < dims.size(); ++k) {
    c.out_indices.push_back(ir::IntExpr::index("i" + std::to_string(k)));
    in.indices.push_back(c.out_indices.back());
  }
  c.out_sizes = dims;
  c.inputs.push_back(std::move(in));
  return contract(std::move(c));
}

void GradContext::emit(ValueId operand, ValueId g) {
  if (!ok() || !relevant(operand) || g < 0) return;
  parts_[operand].push_back(g);
}

void GradContext::emit_reduced(ValueId operand, ValueId g, const ir::SymbolicDims& gdims) {
  if (!ok() || !relevant(operand) || g < 0) return;
  emit(operand, reduce_to_shape(*this, g, gdims, dims(operand)));
}

Status not_differentiable(GradContext& cx, ValueId id, std::string_view why) {
  return make_error(StatusCode::kInvalidArgument, "gradient: {} is not differentiable ({})",
                    describe_node(cx.builder_program(), id), why);
}

}  // namespace plaidml::autodiff::detail
