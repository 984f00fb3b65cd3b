// Structural ops (docs/tile.md section 3): reshape (a view of its operand's buffer where it can
// be, else a row-major copy), index, shape, gather (indices clamp into range), scatter
// (duplicates accumulate) and the taus88 prng_* ops. An op this file cannot lower reports
// kUnsupported naming it rather than computing something else.
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
  if (slot == cx.slot_of(node.operands[0])) return Status::ok();  // a view (lower.cc)
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

// scatter(E, I, V): R has V's dims and E's dtype; E[j, ...] adds into R[clamp(I[j]), ...].
// The row loop is outermost and parallel (each row position is a disjoint column of R); the
// loop over I runs serially inside it, so duplicate indices accumulate without races.
Status lower_scatter(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  ir::ValueId updates = node.operands[0], indices = node.operands[1];
  std::vector<int64_t> dims = cx.bnode(v).shape.dims;
  if (dims.empty()) return Status(StatusCode::kInternal, "scatter into a scalar");
  int64_t count = Shape(DType::I8, cx.dims(indices)).elements();
  int64_t row = Shape(DType::I8, {dims.begin() + 1, dims.end()}).elements();
  int out_slot = cx.slot_of(v);
  DType out_dtype = cx.slot_dtype(out_slot);
  bool narrow_float = out_dtype == DType::F16 || out_dtype == DType::BF16;
  DType acc_dtype = narrow_float ? DType::F32 : out_dtype;
  int acc_slot = narrow_float ? cx.add_slot(BufferSlot::Role::kTemp, v, Shape(acc_dtype, dims))
                              : out_slot;
  int64_t total = count * row;
  StmtPtr init = cx.nest({Shape(acc_dtype, dims).elements()}, "i", [&](const auto& c) {
    return std::vector<StmtPtr>{loop::store(acc_slot, c[0], loop::zero(acc_dtype))};
  });
  cx.add_kernel(v, "_init", init, static_cast<double>(total));
  ExprPtr j = row == 1 ? loop::int_const(0) : loop::var("j");
  ExprPtr i = loop::var("i");
  ExprPtr target = loop::idx_add(loop::idx_mul(clamped_index(cx, indices, i, dims[0]), row), j);
  ExprPtr value = cx.value_at(updates, loop::idx_add(loop::idx_mul(i, row), j), acc_dtype);
  ExprPtr old = loop::load(acc_slot, acc_dtype, target);
  ir::OpKind add = acc_dtype == DType::Bool ? OpKind::BitOr : OpKind::Add;
  StmtPtr body = loop::store(acc_slot, target, loop::op(add, acc_dtype, {old, value}));
  StmtPtr nest = loop::for_loop("i", 0, count, {body});
  if (row > 1) nest = loop::for_loop("j", 0, row, {nest}, /*parallel=*/true);
  cx.add_kernel(v, "", loop::block({nest}), static_cast<double>(total));
  if (narrow_float) {
    StmtPtr round = cx.nest({Shape(acc_dtype, dims).elements()}, "i", [&](const auto& c) {
      ExprPtr wide = loop::load(acc_slot, acc_dtype, c[0]);
      return std::vector<StmtPtr>{loop::store(out_slot, c[0], loop::cast(out_dtype, wide))};
    });
    cx.add_kernel(v, "_round", round, static_cast<double>(total));
  }
  return Status::ok();
}

// taus88 (PlaidML v0's prng, as the interpreter runs it): 2048 generators whose state is
// S[3, 2048]; generator g produces draws g, g + 2048, ... of the u32[dims] output. prng_step
// gives the draws, prng_value the draws scaled into [0, 1) (top 24 bits * 2^-24) and
// prng_state the state after the step. Parallel over generators.
constexpr int64_t kPrngGenerators = 2048;

ExprPtr taus_step(const ExprPtr& s, uint32_t mask, int a, int b, int c) {
  auto u = [](int64_t v) { return loop::int_const(v, DType::U32); };
  auto bin = [](OpKind k, ExprPtr x, ExprPtr y) { return loop::op(k, DType::U32, {x, y}); };
  ExprPtr left = bin(OpKind::Shl, bin(OpKind::BitAnd, s, u(mask)), u(a));
  ExprPtr right = bin(OpKind::Shr, bin(OpKind::BitXor, bin(OpKind::Shl, s, u(b)), s), u(c));
  return bin(OpKind::BitXor, left, right);
}

Status lower_prng(LowerContext& cx, ir::ValueId v) {
  const ir::Node& node = cx.node(v);
  ir::ValueId step = node.op == OpKind::PrngStep ? v : node.operands[0];
  if (cx.node(step).op != OpKind::PrngStep || cx.node(step).kind != ir::NodeKind::kElementwise) {
    return Status(StatusCode::kInternal, "prng_value/prng_state of a non-prng_step node");
  }
  ir::ValueId state = cx.node(step).operands[0];
  int64_t n = cx.bnode(step).shape.elements();
  int slot = cx.slot_of(v);
  DType out = cx.slot_dtype(slot);
  const char* names[3] = {"$s0", "$s1", "$s2"};
  ExprPtr g = loop::var("g");
  std::vector<StmtPtr> per_gen;
  for (int k = 0; k < 3; ++k) {
    ExprPtr index = loop::idx_add(loop::int_const(k * kPrngGenerators), g);
    per_gen.push_back(loop::declare(names[k], cx.value_at(state, index, DType::U32)));
  }
  ExprPtr s[3] = {loop::var(names[0], DType::U32), loop::var(names[1], DType::U32),
                  loop::var(names[2], DType::U32)};
  std::vector<StmtPtr> draw = {loop::assign(names[0], taus_step(s[0], 4294967294u, 12, 13, 19)),
                               loop::assign(names[1], taus_step(s[1], 4294967288u, 4, 2, 25)),
                               loop::assign(names[2], taus_step(s[2], 4294967280u, 17, 3, 11))};
  if (node.op != OpKind::PrngState) {
    ExprPtr bits = loop::op(OpKind::BitXor, DType::U32,
                            {loop::op(OpKind::BitXor, DType::U32, {s[0], s[1]}), s[2]});
    ExprPtr value = bits;
    if (node.op == OpKind::PrngValue) {
      ExprPtr top = loop::op(OpKind::Shr, DType::U32, {bits, loop::int_const(8, DType::U32)});
      value = loop::op(OpKind::Mul, DType::F64,
                       {loop::cast(DType::F64, top), loop::float_const(1.0 / 16777216.0, DType::F64)});
      value = loop::cast(DType::F32, value);
    }
    draw.push_back(loop::store(slot, loop::var("i"), loop::cast(out, value)));
  }
  StmtPtr draws = loop::for_loop("i", 0, n, std::move(draw));
  draws->lo = g;
  draws->step = kPrngGenerators;
  per_gen.push_back(draws);
  if (node.op == OpKind::PrngState) {
    for (int k = 0; k < 3; ++k) {
      ExprPtr index = loop::idx_add(loop::int_const(k * kPrngGenerators), g);
      per_gen.push_back(loop::store(slot, index, loop::cast(out, s[k])));
    }
  }
  StmtPtr body = loop::for_loop("g", 0, kPrngGenerators, std::move(per_gen), /*parallel=*/true);
  cx.add_kernel(v, "", loop::block({body}), static_cast<double>(n) * 8);
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
  if (node.op == OpKind::Scatter) return lower_scatter(cx, v);
  if (node.op == OpKind::PrngStep || node.op == OpKind::PrngValue ||
      node.op == OpKind::PrngState) {
    return lower_prng(cx, v);
  }
  std::string where = node.loc.to_string();
  return make_error(StatusCode::kUnsupported,
                    "'{}'{} is not supported by the CPU code generator yet (tensor '{}')",
                    ir::op_name(node.op), where.empty() ? "" : " at " + where, node.name);
}

}  // namespace plaidml::jit
