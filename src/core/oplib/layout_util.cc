#include "core/oplib/layout_util.h"

namespace plaidml::oplib::util {

namespace se = ir::size_expr;

IntExprPtr product(const SymbolicDims& dims, size_t begin, size_t end) {
  IntExprPtr p = se::lit(1);
  for (size_t k = begin; k < end; ++k) p = se::mul(p, dims[k]);
  return p;
}

Expected<std::vector<int64_t>> normalize_axes(const OpCall& c, const std::vector<int64_t>& axes,
                                              size_t rank, std::string_view attr) {
  std::vector<int64_t> out;
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    PLAIDML_ASSIGN(int64_t n, c.normalize_axis(a, rank, attr));
    if (seen[n]) {
      return c.error(StatusCode::kInvalidArgument, "attribute '{}' names axis {} twice", attr, n);
    }
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

ValueId reshape(OpCall& c, ValueId x, const SymbolicDims& dims) {
  return c.call("reshape", {x}, dims);
}

ValueId transpose(OpCall& c, ValueId x, const SymbolicDims& dims,
                  const std::vector<int64_t>& perm) {
  std::vector<IntExprPtr> in = c.indices(dims.size());
  std::vector<IntExprPtr> out;
  SymbolicDims sizes;
  for (int64_t p : perm) {
    out.push_back(in[p]);
    sizes.push_back(dims[p]);
  }
  return c.contract(ir::AggOp::kAssign, ir::CombOp::kNone, out, sizes, {Access{x, in}});
}

ValueId vector_of_length(OpCall& c, ValueId x, size_t rank, IntExprPtr n) {
  // v[i : n] = =(x[0, ..., 0]): no point when x is empty, and that is fine, only the length counts.
  IntExprPtr i = c.index();
  std::vector<IntExprPtr> zeros(rank, ir::IntExpr::literal(0));
  return c.contract(ir::AggOp::kAssign, ir::CombOp::kNone, {i}, {std::move(n)}, {Access{x, zeros}});
}

}  // namespace plaidml::oplib::util
