// Shape ops: reshape, transpose, squeeze, unsqueeze, flatten (docs/ops-shape.md). All but
// transpose are Tile reshapes with symbolic dims, whose element-count check at bind is the
// run-time check of sizes the op cannot see while building.
#include <fmt/ranges.h>

#include "core/oplib/layout_util.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;

Expected<ValueId> reshape_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(std::vector<int64_t> shape, c.get_ints("shape", std::nullopt));
  int inferred = -1;
  int64_t known = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (inferred >= 0) {
        return c.error(StatusCode::kInvalidArgument,
                       "attribute 'shape' has more than one -1 (inferred) entry");
      }
      inferred = static_cast<int>(k);
    } else if (shape[k] < 0) {
      return c.error(StatusCode::kInvalidArgument,
                     "attribute 'shape' has {} at position {}; sizes must be >= 0 or -1", shape[k],
                     k);
    } else {
      known *= shape[k];
    }
  }
  if (inferred >= 0 && known == 0) {
    return c.error(StatusCode::kInvalidArgument,
                   "attribute 'shape' cannot infer the -1 entry beside a size 0");
  }
  SymbolicDims to;
  for (int64_t s : shape) to.push_back(se::lit(s));
  // C division: when the count is not a multiple of `known`, the bound reshape changes the
  // element count, and bind reports it.
  if (inferred >= 0) to[inferred] = se::div(util::product(x, 0, x.size()), se::lit(known));
  return c.finish(util::reshape(c, c.operand(0), to));
}

Expected<ValueId> transpose_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  std::vector<int64_t> reversed;
  for (size_t k = x.size(); k > 0; --k) reversed.push_back(static_cast<int64_t>(k - 1));
  PLAIDML_ASSIGN(std::vector<int64_t> perm, c.get_ints("perm", reversed));
  if (perm.size() != x.size()) {
    return c.error(StatusCode::kInvalidArgument,
                   "attribute 'perm' has {} entries but the input has rank {}", perm.size(),
                   x.size());
  }
  std::vector<bool> seen(x.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(x.size()) || seen[p]) {
      return c.error(StatusCode::kInvalidArgument,
                     "attribute 'perm' must be a permutation of 0..{}, got {}", x.size() - 1,
                     fmt::join(perm, ", "));
    }
    seen[p] = true;
  }
  return c.finish(util::transpose(c, c.operand(0), x, perm));
}

Expected<ValueId> squeeze_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  std::vector<bool> drop(x.size(), false);
  if (!c.has_attr("axes")) {
    for (size_t k = 0; k < x.size(); ++k) drop[k] = se::literal_value(*x[k]) == 1;
  } else {
    PLAIDML_ASSIGN(std::vector<int64_t> given, c.get_ints("axes", std::nullopt));
    PLAIDML_ASSIGN(std::vector<int64_t> axes, util::normalize_axes(c, given, x.size(), "axes"));
    // Required also when the input has no elements, where the reshape's count check would pass.
    for (int64_t a : axes) {
      PLAIDML_TRY(c.require(ir::AssertOp::kEq, x[a], se::lit(1),
                            fmt::format("axis {} has size {{0}}, not 1", a), {x[a]}));
      drop[a] = true;
    }
  }
  SymbolicDims to;
  for (size_t k = 0; k < x.size(); ++k) {
    if (!drop[k]) to.push_back(x[k]);
  }
  return c.finish(util::reshape(c, c.operand(0), to));
}

Expected<ValueId> unsqueeze_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(std::vector<int64_t> given, c.get_ints("axes", std::nullopt));
  size_t rank = x.size() + given.size();
  PLAIDML_ASSIGN(std::vector<int64_t> axes, util::normalize_axes(c, given, rank, "axes"));
  std::vector<bool> is_new(rank, false);
  for (int64_t a : axes) is_new[a] = true;
  SymbolicDims to;
  size_t next = 0;
  for (size_t k = 0; k < rank; ++k) to.push_back(is_new[k] ? se::lit(1) : x[next++]);
  return c.finish(util::reshape(c, c.operand(0), to));
}

Expected<ValueId> flatten_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(int64_t axis, c.get_int("axis", 1));
  auto r = static_cast<int64_t>(x.size());
  if (axis < -r || axis > r) {
    return c.error(StatusCode::kTypeError, "attribute 'axis' is {}, out of range for rank {}", axis,
                   r);
  }
  if (axis < 0) axis += r;
  SymbolicDims to = {util::product(x, 0, axis), util::product(x, axis, x.size())};
  return c.finish(util::reshape(c, c.operand(0), to));
}

}  // namespace

std::vector<OpDef> shape_ops() {
  return {
      OpDef{"flatten", {"input"}, 1, flatten_op},
      OpDef{"reshape", {"input"}, 1, reshape_op},
      OpDef{"squeeze", {"input"}, 1, squeeze_op},
      OpDef{"transpose", {"input"}, 1, transpose_op},
      OpDef{"unsqueeze", {"input"}, 1, unsqueeze_op},
  };
}

}  // namespace plaidml::oplib
