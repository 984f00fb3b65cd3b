#include "core/ir/printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string_view>
#include <utility>

#include "core/ir/assertion.h"
#include "core/ir/constant.h"

namespace plaidml::ir {
namespace {

std::string print_int_node(const IntExpr& e, const SizeNames* names);

// Binding strength of an IntExpr when printed: parentheses go where a child binds weaker.
int precedence(const IntExpr& e) {
  switch (e.op) {
    case IntOp::kAdd:
    case IntOp::kSub:
      return 1;
    case IntOp::kMul:
    case IntOp::kDiv:
      return 2;
    case IntOp::kNeg:
      return 3;
    case IntOp::kLiteral:
      return e.value < 0 ? 3 : 4;
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv:
      return 4;
  }
  return 4;
}

std::string wrap(const IntExpr& e, bool parens, const SizeNames* names) {
  if (names) {
    if (auto it = names->find(&e); it != names->end()) return it->second;  // one token
  }
  std::string s = print_int_expr(e, names);
  return parens ? "(" + s + ")" : s;
}

std::string_view int_op_symbol(IntOp op) {
  switch (op) {
    case IntOp::kAdd:
      return " + ";
    case IntOp::kSub:
      return " - ";
    case IntOp::kMul:
      return " * ";
    case IntOp::kDiv:
      return " / ";
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kNeg:
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv:
      break;
  }
  return " ? ";
}

std::string_view agg_symbol(AggOp agg) {
  switch (agg) {
    case AggOp::kSum:
      return "+";
    case AggOp::kProd:
      return "*";
    case AggOp::kMax:
      return ">";
    case AggOp::kMin:
      return "<";
    case AggOp::kAssign:
      return "=";
  }
  return "?";
}

std::string float_text(double v) {
  // NaN has no number that reads back as it: the parser reads `nan` as the NaN literal. Its
  // sign is not kept (no Tile op tells NaNs apart).
  if (std::isnan(v)) return "nan";
  std::string s = fmt::format("{}", v);
  if (s == "inf") return "1e999";
  if (s == "-inf") return "-1e999";
  // A float literal must keep looking like one ("1" would reparse as an integer).
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// "text" with `"`, `\` and line ends escaped, as the lexer reads them back.
std::string quoted(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    s += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return s + "\"";
}

class Printer {
 public:
  explicit Printer(const Program& p) : p_(p) {
    // Literals that cannot be written inline: contraction inputs (`2[]` is not Tile), dim
    // literals used as a default (`default N` would name a tensor), and outputs.
    for (const auto& node : p_.nodes) {
      if (node.kind != NodeKind::kContraction) continue;
      for (const auto& access : node.contraction.inputs) named_literals_.insert(access.tensor);
      const auto& d = node.contraction.default_value;
      if (d && !p_.nodes[*d].int_args.empty()) named_literals_.insert(*d);
    }
    for (const auto& [name, id] : p_.outputs) named_literals_.insert(id);
    name_shared_sizes();
  }

  std::string print() {
    out_ = "function (";
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      if (i) out_ += ", ";
      print_input(p_.nodes[p_.inputs[i]]);
    }
    out_ += ") -> (";
    for (size_t i = 0; i < p_.outputs.size(); ++i) {
      if (i) out_ += ", ";
      out_ += tile_name(p_.outputs[i].first);
    }
    out_ += ") {\n";
    for (const IntExpr* e : defined_) {
      out_ += fmt::format("  size {} = {};\n", names_.at(e), print_int_node(*e, &names_));
    }
    for (const Assertion& a : p_.assertions) print_assertion(a);
    for (ValueId id = 0; id < static_cast<ValueId>(p_.nodes.size()); ++id) print_node(id);
    for (const auto& [name, id] : p_.outputs) {
      if (p_.nodes[id].name != name) {
        out_ += fmt::format("  {} = {};\n", tile_name(name), tile_name(p_.nodes[id].name));
      }
    }
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // A size subexpression gets a name when at least two places use it and it is at least this
  // many operators and leaves written out: the names cost more than they save below that, and
  // programs without symbolic sizes keep their text.
  static constexpr uint64_t kNamedSizeNodes = 32;

  struct SizeUse {
    int uses = 0;
    uint64_t nodes = 0;  // written out as a tree, saturating
    bool has_index = false;
  };

  std::string int_text(const IntExpr& e) const { return print_int_expr(e, &names_); }

  // Counts each subexpression's uses over the whole program, then names the shared big ones,
  // operands before the expressions that use them.
  void name_shared_sizes() {
    std::vector<const IntExpr*> order;
    auto visit = [&](const IntExprPtr& e) {
      if (e) count_uses(*e, order);
    };
    for (const Assertion& a : p_.assertions) {
      visit(a.lhs);
      visit(a.rhs);
      for (const auto& e : a.args) visit(e);
    }
    for (const Node& n : p_.nodes) {
      for (const auto& e : n.int_args) visit(e);
      if (n.kind != NodeKind::kContraction) continue;
      const Contraction& c = n.contraction;
      for (const auto& e : c.out_indices) visit(e);
      for (const auto& e : c.out_sizes) visit(e);
      for (const auto& in : c.inputs) {
        for (const auto& e : in.indices) visit(e);
      }
      for (const auto& uc : c.constraints) {
        visit(uc.poly);
        visit(uc.bound);
      }
    }
    std::set<std::string> taken;
    for (const Node& n : p_.nodes) {
      taken.insert(n.name);
      if (n.input_dims) taken.insert(n.input_dims->begin(), n.input_dims->end());
    }
    int next = 0;
    for (const IntExpr* e : order) {
      const SizeUse& u = uses_.at(e);
      if (u.uses < 2 || u.nodes < kNamedSizeNodes || u.has_index) continue;
      std::string name;
      do {
        name = "_S" + std::to_string(next++);
      } while (taken.count(name));
      names_.emplace(e, std::move(name));
      defined_.push_back(e);
    }
  }

  void count_uses(const IntExpr& e, std::vector<const IntExpr*>& order) {
    if (auto it = uses_.find(&e); it != uses_.end()) {
      ++it->second.uses;
      return;
    }
    SizeUse u{1, 1, e.op == IntOp::kIndex};
    for (const auto& a : e.args) {
      count_uses(*a, order);
      const SizeUse& arg = uses_.at(a.get());
      u.nodes = std::min(u.nodes + arg.nodes, kNamedSizeNodes);
      u.has_index = u.has_index || arg.has_index;
    }
    uses_.emplace(&e, u);
    order.push_back(&e);
  }

  bool inline_literal(ValueId id) const {
    const Node& n = p_.nodes[id];
    return n.kind == NodeKind::kLiteral && is_generated_name(n.name) && !named_literals_.count(id);
  }

  // A dim expression used as a value is parenthesised unless it is one token: the parser reads
  // `(2 * N)` back as the one value it is, not as elementwise ops on its parts, and `S / (M *
  // N)` does not print as `S / M * N`.
  std::string literal_text(const Node& n) const {
    if (n.int_args.empty()) {
      return n.literal_is_float ? float_text(n.literal_float) : std::to_string(n.literal_int);
    }
    const IntExpr& e = *n.int_args[0];
    bool atom = e.op == IntOp::kDim || (e.op == IntOp::kLiteral && e.value >= 0);
    return atom ? int_text(e) : "(" + int_text(e) + ")";
  }

  std::string ref(ValueId id) const {
    return inline_literal(id) ? literal_text(p_.nodes[id]) : tile_name(p_.nodes[id].name);
  }

  void print_input(const Node& n) {
    out_ += tile_name(n.name);
    if (n.input_dtype) out_ += fmt::format(": {}", dtype_name(*n.input_dtype));
    if (!n.input_dims) return;
    out_ += "[";
    for (size_t i = 0; i < n.input_dims->size(); ++i) {
      if (i) out_ += ", ";
      const std::string& d = (*n.input_dims)[i];
      bool size = !d.empty() && std::all_of(d.begin(), d.end(), ::isdigit);
      out_ += d.empty() ? "_" : size ? d : tile_name(d);
    }
    out_ += "]";
  }

  // `assert cond, "message", args...;` first: binding checks them before any node.
  void print_assertion(const Assertion& a) {
    out_ += "  assert " + print_assertion_condition(a, &names_) + ", " + quoted(a.message);
    for (const auto& e : a.args) out_ += ", " + int_text(*e);
    out_ += ";\n";
  }

  void print_node(ValueId id) {
    const Node& n = p_.nodes[id];
    switch (n.kind) {
      case NodeKind::kInput:
        return;
      case NodeKind::kLiteral:
        if (!inline_literal(id)) out_ += fmt::format("  {} = {};\n", tile_name(n.name), literal_text(n));
        return;
      case NodeKind::kElementwise:
        out_ += fmt::format("  {} = {};\n", tile_name(n.name), elementwise(n));
        return;
      case NodeKind::kContraction:
        out_ += "  " + contraction(n) + ";\n";
        return;
      case NodeKind::kConstant:
        out_ += fmt::format("  {} = {};\n", tile_name(n.name), constant_text(*n.constant));
        return;
    }
  }

  std::string elementwise(const Node& n) const {
    std::string_view sym = op_infix(n.op);
    if (!sym.empty() && n.operands.size() == 2) {
      return fmt::format("{} {} {}", ref(n.operands[0]), sym, ref(n.operands[1]));
    }
    if (n.op == OpKind::Select && n.operands.size() == 3) {
      return fmt::format("{} ? {} : {}", ref(n.operands[0]), ref(n.operands[1]),
                         ref(n.operands[2]));
    }
    // Prefix forms only where they cannot fold into a negative literal when parsed again.
    if ((n.op == OpKind::Neg || n.op == OpKind::BitNot) && n.operands.size() == 1 &&
        !inline_literal(n.operands[0])) {
      return fmt::format("{}{}", n.op == OpKind::Neg ? "-" : "~", ref(n.operands[0]));
    }
    std::string s = std::string(op_name(n.op)) + "(";
    bool first = true;
    for (ValueId v : n.operands) {
      s += (first ? "" : ", ") + ref(v);
      first = false;
    }
    for (const auto& a : n.int_args) {
      s += (first ? "" : ", ") + int_text(*a);
      first = false;
    }
    return s + ")";
  }

  std::string access(const TensorAccess& a) const {
    std::string s = tile_name(p_.nodes[a.tensor].name) + "[";
    for (size_t i = 0; i < a.indices.size(); ++i) {
      s += (i ? ", " : "") + int_text(*a.indices[i]);
    }
    return s + "]";
  }

  std::string combination(const Contraction& c) const {
    const auto& in = c.inputs;
    auto at = [&](size_t i) { return i < in.size() ? access(in[i]) : std::string("?"); };
    switch (c.comb) {
      case CombOp::kNone:
        return at(0);
      case CombOp::kMul:
        return at(0) + " * " + at(1);
      case CombOp::kAdd:
        return at(0) + " + " + at(1);
      case CombOp::kEq:
        return at(0) + " == " + at(1);
      case CombOp::kCond:
        return at(0) + " == " + at(1) + " ? " + at(2);
    }
    return "?";
  }

  std::string contraction(const Node& n) const {
    const Contraction& c = n.contraction;
    std::string s = tile_name(n.name) + "[";
    for (size_t i = 0; i < c.out_indices.size(); ++i) {
      s += (i ? ", " : "") + int_text(*c.out_indices[i]);
    }
    if (!c.out_sizes.empty()) s += " : ";
    for (size_t i = 0; i < c.out_sizes.size(); ++i) {
      s += (i ? ", " : "") + int_text(*c.out_sizes[i]);
    }
    s += fmt::format("] = {}({})", agg_symbol(c.agg), combination(c));
    for (const auto& uc : c.constraints) {
      s += fmt::format(", {} < {}", int_text(*uc.poly), int_text(*uc.bound));
    }
    if (c.default_value) s += " default " + ref(*c.default_value);
    if (c.no_defract) s += " no_defract";
    return s;
  }

  const Program& p_;
  std::set<ValueId> named_literals_;  // literals that need a statement of their own
  std::unordered_map<const IntExpr*, SizeUse> uses_;
  SizeNames names_;                      // the shared sizes written once
  std::vector<const IntExpr*> defined_;  // in the order their `size` statements print
  std::string out_;
};

}  // namespace

bool is_generated_name(const std::string& name) {
  if (name.size() < 3 || name[0] != '_' || name[1] != 'T') return false;
  for (size_t i = 2; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

std::string tile_name(const std::string& name) {
  auto plain_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool plain = !name.empty() && (std::isupper(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
               std::all_of(name.begin(), name.end(), plain_char);
  if (plain) return name;
  std::string quoted = "`";
  for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
  return quoted + "`";
}

std::string_view int_function_name(IntOp op) {
  return op == IntOp::kMax ? "max" : op == IntOp::kMin ? "min" : "floordiv";
}

std::string print_int_expr(const IntExpr& e) { return print_int_expr(e, nullptr); }

std::string print_int_expr(const IntExpr& e, const SizeNames* names) {
  if (names) {
    if (auto it = names->find(&e); it != names->end()) return it->second;
  }
  return print_int_node(e, names);
}

namespace {

// `e` itself written out, its operands by name where they have one.
std::string print_int_node(const IntExpr& e, const SizeNames* names) {
  switch (e.op) {
    case IntOp::kLiteral:
      return std::to_string(e.value);
    case IntOp::kIndex:
      return e.name;
    case IntOp::kDim:
      return tile_name(e.name);
    case IntOp::kNeg: {
      const IntExpr& arg = *e.args[0];
      // `-5` reads back as one literal, so a negated literal keeps its parentheses: `-(0)`. A
      // negation of a negation is `- -x`: one level per operator, as the parser counts them
      // (`-(-x)` would cost two, and a chain that parsed could print too deep to parse back).
      if (arg.op == IntOp::kNeg && !(names && names->count(&arg))) {
        return "- " + print_int_expr(arg, names);
      }
      return "-" + wrap(arg, precedence(arg) <= 3 || arg.op == IntOp::kLiteral, names);
    }
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv:
      return fmt::format("{}({}, {})", int_function_name(e.op), print_int_expr(*e.args[0], names),
                         print_int_expr(*e.args[1], names));
    case IntOp::kAdd:
    case IntOp::kSub:
    case IntOp::kMul:
    case IntOp::kDiv: {
      int p = precedence(e);
      return wrap(*e.args[0], precedence(*e.args[0]) < p, names) +
             std::string(int_op_symbol(e.op)) +
             wrap(*e.args[1], precedence(*e.args[1]) <= p, names);
    }
  }
  return "?";
}

}  // namespace

std::string print_tile(const Program& program) { return Printer(program).print(); }

}  // namespace plaidml::ir
