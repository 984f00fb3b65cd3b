#include "core/ir/ops.h"

namespace plaidml::ir {
namespace {

struct OpInfo {
  OpKind op;
  std::string_view name;
  int arity;
  OpCategory category;
  std::string_view infix;
};

constexpr OpInfo kOps[] = {
#define PLAIDML_OP_ROW(e, name, arity, category, infix) \
  {OpKind::e, name, arity, OpCategory::category, infix},
    PLAIDML_OPS(PLAIDML_OP_ROW)
#undef PLAIDML_OP_ROW
};

}  // namespace

int op_count() { return static_cast<int>(sizeof(kOps) / sizeof(kOps[0])); }
std::string_view op_name(OpKind op) { return kOps[static_cast<int>(op)].name; }
int op_arity(OpKind op) { return kOps[static_cast<int>(op)].arity; }
OpCategory op_category(OpKind op) { return kOps[static_cast<int>(op)].category; }
std::string_view op_infix(OpKind op) { return kOps[static_cast<int>(op)].infix; }

std::optional<OpKind> op_from_name(std::string_view name) {
  for (const auto& row : kOps) {
    if (row.name == name) return row.op;
  }
  return std::nullopt;
}

}  // namespace plaidml::ir
