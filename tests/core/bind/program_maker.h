// Builds ir::Program values node by node for the bind tests, so they do not depend on the
// builder or the parser (each has its own suite). Every node gets line:column = (line, 1) so
// messages carry a location the tests can check.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/program.h"

namespace plaidml::ir::testing {

inline IntExprPtr idx(const std::string& n) { return IntExpr::index(n); }
inline IntExprPtr dim(const std::string& n) { return IntExpr::dim(n); }
inline IntExprPtr lit(int64_t v) { return IntExpr::literal(v); }
inline IntExprPtr operator+(IntExprPtr a, IntExprPtr b) {
  return IntExpr::binary(IntOp::kAdd, a, b);
}
inline IntExprPtr operator-(IntExprPtr a, IntExprPtr b) {
  return IntExpr::binary(IntOp::kSub, a, b);
}
inline IntExprPtr operator*(IntExprPtr a, IntExprPtr b) {
  return IntExpr::binary(IntOp::kMul, a, b);
}
inline IntExprPtr operator/(IntExprPtr a, IntExprPtr b) {
  return IntExpr::binary(IntOp::kDiv, a, b);
}
inline IntExprPtr operator+(IntExprPtr a, int64_t b) { return a + lit(b); }
inline IntExprPtr operator-(IntExprPtr a, int64_t b) { return a - lit(b); }
inline IntExprPtr operator*(int64_t a, IntExprPtr b) { return lit(a) * b; }
inline IntExprPtr operator/(IntExprPtr a, int64_t b) { return a / lit(b); }

inline TensorAccess access(ValueId t, std::vector<IntExprPtr> indices) {
  TensorAccess a;
  a.tensor = t;
  a.indices = std::move(indices);
  return a;
}

class ProgramMaker {
 public:
  ValueId input(const std::string& name, std::optional<std::vector<std::string>> dims,
                std::optional<DType> dtype = std::nullopt) {
    Node n = node(NodeKind::kInput, name);
    n.input_dims = std::move(dims);
    n.input_dtype = dtype;
    ValueId id = push(std::move(n));
    p_.inputs.push_back(id);
    return id;
  }
  ValueId int_lit(int64_t v) {
    Node n = node(NodeKind::kLiteral, "");
    n.literal_int = v;
    return push(std::move(n));
  }
  ValueId float_lit(double v) {
    Node n = node(NodeKind::kLiteral, "");
    n.literal_is_float = true;
    n.literal_float = v;
    return push(std::move(n));
  }
  ValueId dim_lit(IntExprPtr e) {
    Node n = node(NodeKind::kLiteral, "");
    n.int_args = {std::move(e)};
    return push(std::move(n));
  }
  // name "" gives a generated temporary.
  ValueId op(OpKind k, std::vector<ValueId> operands, std::vector<IntExprPtr> int_args = {},
             const std::string& name = "") {
    Node n = node(NodeKind::kElementwise, name);
    n.op = k;
    n.operands = std::move(operands);
    n.int_args = std::move(int_args);
    return push(std::move(n));
  }
  ValueId contraction(const std::string& name, Contraction c) {
    Node n = node(NodeKind::kContraction, name);
    n.contraction = std::move(c);
    return push(std::move(n));
  }
  void output(ValueId id) { p_.outputs.emplace_back(p_.nodes[id].name, id); }
  std::shared_ptr<const Program> finish() { return std::make_shared<Program>(p_); }

 private:
  Node node(NodeKind kind, const std::string& name) {
    Node n;
    n.kind = kind;
    n.name = name.empty() ? "_T" + std::to_string(temp_++) : name;
    n.loc.line = static_cast<int>(p_.nodes.size()) + 1;
    n.loc.column = 1;
    return n;
  }
  ValueId push(Node n) {
    p_.nodes.push_back(std::move(n));
    return static_cast<ValueId>(p_.nodes.size()) - 1;
  }
  Program p_{"test"};
  int temp_ = 0;
};

}  // namespace plaidml::ir::testing
