#include "core/ir/bind_common.h"

#include <fmt/format.h>

#include <string_view>

#include "core/ir/printer.h"

namespace plaidml::ir::detail {
namespace {

bool is_generated(const std::string& name) { return name.empty() || is_generated_name(name); }

std::string literal_text(const Node& n) {
  if (!n.int_args.empty()) return print_int_expr(*n.int_args[0]);
  if (n.literal_is_float) return fmt::format("{}", n.literal_float);
  return std::to_string(n.literal_int);
}

std::string describe_at(const Program& p, ValueId id, int depth, bool nested);

std::string elementwise_text(const Program& p, const Node& n, int depth, bool nested) {
  std::vector<std::string> args;
  for (ValueId v : n.operands) args.push_back(describe_at(p, v, depth + 1, true));
  std::string_view sym = op_infix(n.op);
  if (!sym.empty() && args.size() == 2) {
    std::string s = fmt::format("{} {} {}", args[0], sym, args[1]);
    return nested ? "(" + s + ")" : s;
  }
  if (n.op == OpKind::Neg && args.size() == 1) return "-" + args[0];
  if (n.op == OpKind::BitNot && args.size() == 1) return "~" + args[0];
  if (n.op == OpKind::Select && args.size() == 3) {
    std::string s = fmt::format("{} ? {} : {}", args[0], args[1], args[2]);
    return nested ? "(" + s + ")" : s;
  }
  for (const auto& a : n.int_args) args.push_back(print_int_expr(*a));
  return fmt::format("{}({})", op_name(n.op), fmt::join(args, ", "));
}

std::string describe_at(const Program& p, ValueId id, int depth, bool nested) {
  if (id < 0 || id >= static_cast<ValueId>(p.nodes.size())) return "?";
  const Node& n = p.nodes[id];
  if (!is_generated(n.name)) return n.name;
  switch (n.kind) {
    case NodeKind::kLiteral:
      return literal_text(n);
    case NodeKind::kElementwise:
      if (depth >= 3) return "...";
      return elementwise_text(p, n, depth, nested);
    case NodeKind::kInput:
    case NodeKind::kContraction:
    case NodeKind::kConstant:
      return n.name.empty() ? "?" : n.name;
  }
  return n.name;
}

}  // namespace

std::string where(const SourceLoc& loc) {
  std::string s = loc.to_string();
  return s.empty() ? s : s + ": ";
}

std::string describe(const Program& program, ValueId id) {
  return describe_at(program, id, 0, false);
}

std::string describe_expr(const Program& program, ValueId id) {
  const Node& n = program.nodes[id];
  if (n.kind != NodeKind::kElementwise) return describe(program, id);
  return elementwise_text(program, n, 0, false);
}

std::string op_display(OpKind op) {
  if (op == OpKind::BitNot) return "~";
  std::string_view sym = op_infix(op);
  return std::string(sym.empty() ? op_name(op) : sym);
}

std::string describe_with_shape(const BindState& s, ValueId id) {
  return fmt::format("'{}' ({})", describe(s.program, id), s.bound.nodes[id].shape.to_string());
}

}  // namespace plaidml::ir::detail
