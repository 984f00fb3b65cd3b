// Structural ops (TILE.md section 3): reshape (a row-major copy), index, shape, gather (indices
// clamp into range) and scatter (duplicates accumulate). prng_* is not lowered yet: it reports
// kUnsupported naming the op rather than computing something else.
#include <fmt/format.h>

#include "jit/lower/lower_context.h"

namespace plaidml::jit {

using ir::OpKind;
using loop::ExprPtr;
using loop::StmtPtr;

namespace {

Status lower_reshape(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  int slot = cx.slot_of(v);
  DType dtype = cx.slot_dtype(slot);
  int64_t n = cx.bnode(v).shape.elements();
  // Row-major order is unchanged by a reshape: copy element k to element k.
  StmtPtr body = cx.nest({n}, "i", [&](const std::vector<ExprPtr>& c) {
    ExprPtr src = cx.node(node.operands[0]).kind == ir::NodeKind::kLiteral ? loop::int_const(0)
                                                                             : c[0];
    return std::vector<StmtPtr>{loop::store(slot, c[0], cx.value_at(node.operands[0], src, dtype))};
  });
  cx.add_kernel(v, "", std::move(body), static_cast<double>(n));
  return Status::ok();
}

Status lower_index(LowerContext& cx, ir::ValueId v) {
  const ir::BoundNode& bn = cx.bnode(v);
  int64_t axis = bn.int_args.empty() ? -1 : bn.int_args[0];
  std::vector<int64_t> dims = bn.shape.dims;
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size())) {
    return make_error(StatusCode::kInternal, "index axis {} out of range for rank {}", axis,
                      dims.size());
  }
  int slot = cx.slot_of(v);
  StmtPtr body = cx.nest(dims, "i", [&](const std::vector<ExprPtr>& c) {
    ExprPtr value = loop::cast(cx.slot_dtype(slot), c[axis]);
    return std::vector<StmtPtr>{loop::store(slot, LowerContext::linear_index(dims, c), value)};
  });
  cx.add_kernel(v, "", std::move(body), static_cast<double>(bn.shape.elements()));
  return Status::ok();
}

Status lower_shape_of(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  std::vector<int64_t> dims = cx.dims(node.operands[0]);
  int slot = cx.slot_of(v);
  std::vector<StmtPtr> stores;
  for (size_t d = 0; d < dims.size(); ++d) {
    ExprPtr value = loop::cast(cx.slot_dtype(slot), loop::int_const(dims[d]));
    stores.push_back(loop::store(slot, loop::int_const(static_cast<int64_t>(d)), value));
  }
  cx.add_kernel(v, "", loop::block(std::move(stores)), static_cast<double>(dims.size()));
  return Status::ok();
}

// The index read from I at `index`, converted to i64 and clamped into [0, size).
ExprPtr clamped_index(LowerContext& cx, ir::ValueId indices, ExprPtr index, int64_t size) {
  ExprPtr i = cx.value_at(indices, std::move(index), DType::I64);
  i = loop::op(OpKind::Max, DType::I64, {i, loop::int_const(0)});
  return loop::op(OpKind::Min, DType::I64, {i, loop::int_const(size - 1)});
}

// gather(V, I): O[i..., j...] = V[clamp(I[i...]), j...]; O has dims I.dims + V.dims[1:].
Status lower_gather(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  ir::ValueId values = node.operands[0], indices = node.operands[1];
  std::vector<int64_t> vdims = cx.dims(values), idims = cx.dims(indices);
  std::vector<int64_t> dims = cx.bnode(v).shape.dims;
  if (vdims.empty() || dims.size() != idims.size() + vdims.size() - 1) {
    return make_error(StatusCode::kInternal, "gather: unexpected shapes {} {} -> {}",
                      dims_to_string(vdims), dims_to_string(idims), dims_to_string(dims));
  }
  int slot = cx.slot_of(v);
  StmtPtr body = cx.nest(dims, "i", [&](const std::vector<ExprPtr>& c) {
    std::vector<ExprPtr> ic(c.begin(), c.begin() + static_cast<long>(idims.size()));
    std::vector<ExprPtr> vc = {clamped_index(cx, indices, LowerContext::linear_index(idims, ic),
                                             vdims[0])};
    vc.insert(vc.end(), c.begin() + static_cast<long>(idims.size()), c.end());
    ExprPtr value = cx.value_at(values, LowerContext::linear_index(vdims, vc), cx.slot_dtype(slot));
    return std::vector<StmtPtr>{loop::store(slot, LowerContext::linear_index(dims, c), value)};
  });
  cx.add_kernel(v, "", std::move(body), static_cast<double>(cx.bnode(v).shape.elements()));
  return Status::ok();
}

}  // namespace

Status lower_structural(LowerContext& cx, ir::ValueId v) {
  // Only the structural rows of the op table reach here, so this is an if-chain, not a switch.
  const ir::Node& node = cx.node(v);
  if (node.op == OpKind::Reshape) return lower_reshape(cx, v);
  if (node.op == OpKind::Index) return lower_index(cx, v);
  if (node.op == OpKind::ShapeOf) return lower_shape_of(cx, v);
  if (node.op == OpKind::Gather) return lower_gather(cx, v);
  std::string where = node.loc.to_string();
  return make_error(StatusCode::kUnsupported,
                    "'{}'{} is not supported by the CPU code generator yet (tensor '{}')",
                    ir::op_name(node.op), where.empty() ? "" : " at " + where, node.name);
}

}  // namespace plaidml::jit
