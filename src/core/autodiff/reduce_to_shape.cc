#include "core/autodiff/reduce_to_shape.h"

#include <string>

namespace plaidml::autodiff::detail {

namespace se = ir::size_expr;

namespace {

bool same_dims(const ir::SymbolicDims& a, const ir::SymbolicDims& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!se::same(*a[k], *b[k])) return false;
  }
  return true;
}

// The output index for target axis of size `t` read from a result axis of size `r` by `j`.
ir::IntExprPtr target_index(const ir::IntExprPtr& j, const ir::IntExprPtr& t,
                            const ir::IntExprPtr& r) {
  if (se::same(*t, *r)) return j;
  if (se::literal_value(*t) == 1) return se::lit(0);
  auto factor = se::min(se::sub(t, se::lit(1)), se::lit(1));
  return ir::IntExpr::binary(ir::IntOp::kMul, j, factor);
}

}  // namespace

ValueId reduce_to_shape(GradContext& cx, ValueId g, const ir::SymbolicDims& gdims,
                        const ir::SymbolicDims& target) {
  if (!cx.ok()) return -1;
  if (same_dims(gdims, target)) return g;
  if (target.size() > gdims.size()) {
    cx.fail(
        Status(StatusCode::kInternal, "gradient: an operand has a higher rank than its result"));
    return -1;
  }
  size_t offset = gdims.size() - target.size();
  ir::Contraction c;
  c.agg = ir::AggOp::kSum;
  ir::TensorAccess in{g, {}, {}};
  for (size_t k = 0; k < gdims.size(); ++k) {
    auto j = ir::IntExpr::index("j" + std::to_string(k));
    in.indices.push_back(j);
    if (k < offset) continue;
    c.out_indices.push_back(target_index(j, target[k - offset], gdims[k]));
    c.out_sizes.push_back(target[k - offset]);
  }
  c.inputs.push_back(std::move(in));
  return cx.contract(std::move(c));
}

}  // namespace plaidml::autodiff::detail
