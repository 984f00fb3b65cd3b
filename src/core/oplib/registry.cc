// The op table: the groups of ops, listed explicitly (docs/design.md section 3: no static
// registration), and apply(), which checks operand counts and unknown attributes for every op.
#include <algorithm>
#include <map>

#include "core/oplib/op_call.h"

namespace plaidml::oplib {
namespace {

const std::map<std::string, OpDef, std::less<>>& table() {
  static const auto* ops = [] {
    auto* m = new std::map<std::string, OpDef, std::less<>>();
    for (auto group : {linalg_ops, conv_ops, pool_ops, reduce_ops, activation_ops, norm_ops,
                       loss_ops, scan_ops, shape_ops, layout_ops, index_ops}) {
      for (OpDef& def : group()) m->emplace(std::string(def.name), std::move(def));
    }
    return m;
  }();
  return *ops;
}

std::string operand_list(const OpDef& def) {
  std::string out;
  for (size_t k = 0; k < def.operand_names.size(); ++k) {
    if (k > 0) out += ", ";
    out += def.operand_names[k];
    if (k >= def.required) out += " (optional)";
  }
  return out;
}

}  // namespace

const std::vector<std::string>& op_names() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const auto& [name, def] : table()) v->push_back(name);
    return v;
  }();
  return *names;
}

Expected<ir::ValueId> apply(ir::ProgramBuilder& b, std::string_view name,
                            const std::vector<ir::ValueId>& operands, const Attrs& attrs,
                            const ir::SourceLoc& loc) {
  auto it = table().find(name);
  if (it == table().end()) return make_error(StatusCode::kNotFound, "unknown op '{}'", name);
  const OpDef& def = it->second;
  if (def.variadic && operands.size() < def.required) {
    return make_error(StatusCode::kInvalidArgument, "{}: takes {} or more operands ({}...), got {}",
                      name, def.required, def.operand_names.at(0), operands.size());
  }
  if (!def.variadic &&
      (operands.size() < def.required || operands.size() > def.operand_names.size())) {
    std::string want = def.required == def.operand_names.size()
                           ? std::to_string(def.required)
                           : fmt::format("{} to {}", def.required, def.operand_names.size());
    return make_error(StatusCode::kInvalidArgument, "{}: takes {} operand{} ({}), got {}", name,
                      want, def.operand_names.size() == 1 ? "" : "s", operand_list(def),
                      operands.size());
  }
  for (size_t k = 0; k < operands.size(); ++k) {
    ValueId v = operands[k];
    if (v < 0 || static_cast<size_t>(v) >= b.program().nodes.size()) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: argument {} is not a value of this builder", name, k);
    }
  }
  // A failed op leaves the builder as it was: no half-built nodes, no generated dim names.
  ir::ProgramBuilder saved = b;
  OpCall call(b, def.name, def.operand_names, operands, attrs, loc, def.variadic);
  auto result = def.fn(call);
  Status status = result.has_value() ? call.check_unused_attrs() : result.status();
  if (!status.is_ok()) {
    b = std::move(saved);
    return status;
  }
  return result;
}

}  // namespace plaidml::oplib
