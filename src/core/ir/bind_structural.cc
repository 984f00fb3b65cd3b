// Shape rules of the structural ops (docs/tile.md section 3, "Structure"). Choices, following
// PlaidML v0 where it had one (also in docs/tile.md section 3.3):
//   reshape(X, d...)   X's dtype, dims d...; the element count must not change.
//   index(X, axis)     i32, X's dims; 0 <= axis < rank(X).
//   shape(X)           i32[rank(X)].
//   gather(V, I)       V's dtype, dims I.dims ++ V.dims[1:]; I any integer dtype (v0: i32 only).
//   scatter(E, I, V)   the adjoint of gather: E's dtype, V's dims (V only gives the shape);
//                      E.dims must be I.dims ++ V.dims[1:]; E[j, ...] adds into R[I[j], ...].
//   prng_step(S, d...) S is the taus88 state, u32[3, 2048] (v0's k_rng_size). The node's value
//                      is the u32[d...] raw 32-bit draws; prng_value(P) is f32[d...] (the draws
//                      scaled into [0, 1)) and prng_state(P) is the u32[3, 2048] state after
//                      the step. P must be a prng_step node. v0 typed the step as a tuple;
//                      here it is an ordinary tensor, so the IR needs no tuple type.
#include <fmt/format.h>

#include "core/ir/bind_common.h"
#include "core/ir/op_cases.h"

namespace plaidml::ir::detail {
namespace {

constexpr int64_t kPrngStateRows = 3;
constexpr int64_t kPrngStateSize = 2048;

struct StructuralCtx {
  BindState& s;
  ValueId id;
  const Node& n;
  BoundNode& b;
  const Shape& operand(size_t k) const { return s.bound.nodes[n.operands[k]].shape; }
  std::string name(size_t k) const { return describe(s.program, n.operands[k]); }
  std::string expr() const { return describe_expr(s.program, id); }
  Status set(DType dtype, std::vector<int64_t> dims) {
    b.shape = Shape(dtype, std::move(dims));
    b.compute_dtype = dtype;
    b.weak = false;
    return Status::ok();
  }
};

Status bind_reshape(StructuralCtx& c) {
  const Shape& x = c.operand(0);
  Shape to(x.dtype, c.b.int_args);
  for (int64_t d : to.dims) {
    if (d < 0) {
      return make_error(StatusCode::kTypeError, "{}reshape of '{}' to {} has a negative size",
                        where(c.n.loc), c.name(0), dims_to_string(to.dims));
    }
  }
  if (to.elements() != x.elements()) {
    return make_error(StatusCode::kTypeError,
                      "{}reshape of '{}' from {} to {} changes the element count from {} to {}",
                      where(c.n.loc), c.name(0), dims_to_string(x.dims), dims_to_string(to.dims),
                      x.elements(), to.elements());
  }
  c.b.weak = c.s.bound.nodes[c.n.operands[0]].weak;
  c.b.shape = to;
  c.b.compute_dtype = to.dtype;
  return Status::ok();
}

Status bind_index(StructuralCtx& c) {
  const Shape& x = c.operand(0);
  int64_t axis = c.b.int_args.empty() ? -1 : c.b.int_args[0];
  if (axis < 0 || axis >= static_cast<int64_t>(x.rank())) {
    return make_error(StatusCode::kTypeError,
                      "{}index axis {} is out of range for '{}' ({}) in '{}'", where(c.n.loc), axis,
                      c.name(0), x.to_string(), c.expr());
  }
  return c.set(DType::I32, x.dims);
}

Status check_index_tensor(StructuralCtx& c, size_t k, std::string_view op) {
  DType t = c.operand(k).dtype;
  if (dtype_is_integer(t)) return Status::ok();
  return make_error(StatusCode::kTypeError,
                    "{}{} indices '{}' must have an integer dtype, but they are {} in '{}'",
                    where(c.n.loc), op, c.name(k), dtype_name(t), c.expr());
}

Status check_data_rank(StructuralCtx& c, size_t k, std::string_view op) {
  if (c.operand(k).rank() >= 1) return Status::ok();
  return make_error(StatusCode::kTypeError, "{}{} needs a tensor of rank 1 or more, but '{}' is {}",
                    where(c.n.loc), op, c.name(k), c.operand(k).to_string());
}

// I.dims ++ V.dims[1:]
std::vector<int64_t> gathered_dims(const Shape& values, const Shape& indices) {
  std::vector<int64_t> dims = indices.dims;
  dims.insert(dims.end(), values.dims.begin() + 1, values.dims.end());
  return dims;
}

Status bind_gather(StructuralCtx& c) {
  PLAIDML_TRY(check_data_rank(c, 0, "gather"));
  PLAIDML_TRY(check_index_tensor(c, 1, "gather"));
  return c.set(c.operand(0).dtype, gathered_dims(c.operand(0), c.operand(1)));
}

Status bind_scatter(StructuralCtx& c) {
  PLAIDML_TRY(check_index_tensor(c, 1, "scatter"));
  PLAIDML_TRY(check_data_rank(c, 2, "scatter"));
  std::vector<int64_t> want = gathered_dims(c.operand(2), c.operand(1));
  if (c.operand(0).dims != want) {
    return make_error(StatusCode::kTypeError,
                      "{}scatter updates '{}' have dims {} but the indices '{}' and the shape "
                      "'{}' need {} in '{}'",
                      where(c.n.loc), c.name(0), dims_to_string(c.operand(0).dims), c.name(1),
                      c.name(2), dims_to_string(want), c.expr());
  }
  return c.set(c.operand(0).dtype, c.operand(2).dims);
}

Status bind_prng_step(StructuralCtx& c) {
  Shape state(DType::U32, {kPrngStateRows, kPrngStateSize});
  if (c.operand(0) != state) {
    return make_error(StatusCode::kTypeError, "{}prng_step state '{}' must be {}, but it is {}",
                      where(c.n.loc), c.name(0), state.to_string(), c.operand(0).to_string());
  }
  for (int64_t d : c.b.int_args) {
    if (d < 0) {
      return make_error(StatusCode::kTypeError, "{}prng_step size {} is negative in '{}'",
                        where(c.n.loc), dims_to_string(c.b.int_args), c.expr());
    }
  }
  return c.set(DType::U32, c.b.int_args);
}

Status bind_prng_result(StructuralCtx& c) {
  const Node& step = c.s.program.nodes[c.n.operands[0]];
  if (step.kind != NodeKind::kElementwise || step.op != OpKind::PrngStep) {
    return make_error(StatusCode::kTypeError, "{}{} needs the result of prng_step, but got '{}'",
                      where(c.n.loc), op_name(c.n.op), c.name(0));
  }
  if (c.n.op == OpKind::PrngState) return c.set(DType::U32, {kPrngStateRows, kPrngStateSize});
  return c.set(DType::F32, c.operand(0).dims);
}

}  // namespace

Status bind_structural(BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  StructuralCtx c{s, id, n, s.bound.nodes[id]};
  switch (n.op) {
    case OpKind::Reshape:
      return bind_reshape(c);
    case OpKind::Index:
      return bind_index(c);
    case OpKind::ShapeOf:
      return c.set(DType::I32, {static_cast<int64_t>(c.operand(0).rank())});
    case OpKind::Gather:
      return bind_gather(c);
    case OpKind::Scatter:
      return bind_scatter(c);
    case OpKind::PrngStep:
      return bind_prng_step(c);
    case OpKind::PrngState:
    case OpKind::PrngValue:
      return bind_prng_result(c);
    PLAIDML_OPS_EXCEPT_STRUCTURAL  // every other op (op_cases.h)
      break;
  }
  return make_error(StatusCode::kInternal, "bind: '{}' is not a structural op", op_name(n.op));
}

}  // namespace plaidml::ir::detail
