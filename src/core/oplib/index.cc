// Index ops: gather (numpy.take along an axis) and one_hot (docs/ops-shape.md).
#include "core/oplib/layout_util.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;

// Negative indices count from the end (numpy, ONNX): i < 0 ? i + size : i.
ValueId wrap_negative(OpCall& c, ValueId idx, const IntExprPtr& size) {
  ValueId negative = c.call("cmp_lt", {idx, c.int_literal(0)});
  return c.call("select", {negative, c.add(idx, c.size_value(size)), idx});
}

Expected<ValueId> gather_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(SymbolicDims idx, c.dims(1));
  if (x.empty()) {
    return c.error(StatusCode::kTypeError, "argument '{}' is a scalar; it needs rank 1 or more",
                   c.operand_name(0));
  }
  PLAIDML_ASSIGN(int64_t given, c.get_int("axis", 0));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(given, x.size(), "axis"));
  ValueId i = wrap_negative(c, c.operand(1), x[axis]);
  // An empty axis has no row to clamp to: an error while building for a literal size, else
  // when the program is bound.
  PLAIDML_TRY(c.require(ir::AssertOp::kGe, x[axis], se::lit(1),
                        fmt::format("axis {} has size {{0}}; there is nothing to gather", axis),
                        {x[axis]}));
  if (axis == 0) return c.finish(c.call("gather", {c.operand(0), i}));
  // Tile's gather takes rows of axis 0: move `axis` to the front, gather, and move the gathered
  // index axes back to where `axis` was.
  std::vector<int64_t> front = {axis};
  for (int64_t k = 0; k < static_cast<int64_t>(x.size()); ++k) {
    if (k != axis) front.push_back(k);
  }
  ValueId xt = util::transpose(c, c.operand(0), x, front);
  ValueId g = c.call("gather", {xt, i});
  // g's dims: idx..., x[front[1]], x[front[2]], ...
  SymbolicDims gd = idx;
  for (size_t k = 1; k < front.size(); ++k) gd.push_back(x[front[k]]);
  auto m = static_cast<int64_t>(idx.size());
  std::vector<int64_t> back;
  for (int64_t k = 0; k < axis; ++k) back.push_back(m + k);
  for (int64_t k = 0; k < m; ++k) back.push_back(k);
  for (int64_t k = m + axis; k < static_cast<int64_t>(gd.size()); ++k) back.push_back(k);
  return c.finish(util::transpose(c, g, gd, back));
}

// The cast of a one_hot result to `dtype`.
ValueId cast_to(OpCall& c, ValueId v, const std::string& dtype) {
  struct Cast {
    std::string_view name, fn;
    int bits;
  };
  static const Cast kCasts[] = {
      {"float16", "as_float", 16},   {"float32", "as_float", 32}, {"float64", "as_float", 64},
      {"bfloat16", "as_bfloat", 16}, {"int8", "as_int", 8},       {"int16", "as_int", 16},
      {"int32", "as_int", 32},       {"int64", "as_int", 64},     {"uint8", "as_uint", 8},
      {"uint16", "as_uint", 16},     {"uint32", "as_uint", 32},   {"uint64", "as_uint", 64},
  };
  if (dtype == "bool") return c.call("as_bool", {v});
  for (const Cast& k : kCasts) {
    if (k.name == dtype) return c.call(k.fn, {v}, {ir::IntExpr::literal(k.bits)});
  }
  return -1;  // unreachable: get_string allowed only the names above
}

Expected<ValueId> one_hot_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims idx, c.dims(0));
  PLAIDML_ASSIGN(int64_t depth, c.get_int("depth", std::nullopt));
  if (depth < 1) {
    return c.error(StatusCode::kInvalidArgument, "attribute 'depth' is {}; it must be >= 1", depth);
  }
  size_t rank = idx.size() + 1;
  PLAIDML_ASSIGN(int64_t given, c.get_int("axis", -1));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(given, rank, "axis"));
  PLAIDML_ASSIGN(double on, c.get_float("on_value", 1.0));
  PLAIDML_ASSIGN(double off, c.get_float("off_value", 0.0));
  PLAIDML_ASSIGN(std::string dtype,
                 c.get_string("dtype", "float32",
                              {"float16", "bfloat16", "float32", "float64", "int8", "int16",
                               "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"}));
  // indices with a 1 at `axis` == iota [depth, 1, ...] (one 1 per axis after `axis`): the
  // broadcast compare is the one-hot mask; an index out of [0, depth) matches nothing.
  ValueId i = wrap_negative(c, c.operand(0), se::lit(depth));
  SymbolicDims with_axis = idx;
  with_axis.insert(with_axis.begin() + axis, se::lit(1));
  i = util::reshape(c, i, with_axis);
  ValueId iota =
      c.call("index", {util::vector_of_length(c, c.operand(0), idx.size(), se::lit(depth))},
             {ir::IntExpr::literal(0)});
  if (static_cast<size_t>(axis) + 1 < rank) {
    SymbolicDims iota_dims(rank - axis, se::lit(1));
    iota_dims[0] = se::lit(depth);
    iota = util::reshape(c, iota, iota_dims);
  }
  ValueId mask = c.call("cmp_eq", {i, iota});
  ValueId r = c.call("select", {mask, c.literal(on), c.literal(off)});
  return c.finish(cast_to(c, r, dtype));
}

}  // namespace

std::vector<OpDef> index_ops() {
  return {
      OpDef{"gather", {"input", "indices"}, 2, gather_op},
      OpDef{"one_hot", {"indices"}, 1, one_hot_op},
  };
}

}  // namespace plaidml::oplib
