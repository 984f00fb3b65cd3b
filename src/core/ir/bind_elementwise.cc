// Elementwise ops: numpy broadcasting of the operands, dtype by type_rules.h, casts by bits.
#include <fmt/format.h>

#include "core/ir/bind_common.h"
#include "core/ir/bind_int_expr.h"
#include "core/ir/type_rules.h"

namespace plaidml::ir::detail {
namespace {

std::vector<TypedOperand> typed_operands(const BindState& s, const Node& n) {
  std::vector<TypedOperand> out;
  for (ValueId v : n.operands) {
    const BoundNode& b = s.bound.nodes[v];
    out.push_back(TypedOperand{b.shape.dtype, b.weak});
  }
  return out;
}

Status eval_int_args(BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  BoundNode& b = s.bound.nodes[id];
  b.int_args.clear();
  for (size_t i = 0; i < n.int_args.size(); ++i) {
    auto v = eval_size(*n.int_args[i], s.bound.dims);
    if (!v) {
      return v.status().with_context(fmt::format("{}argument {} of '{}': ", where(n.loc),
                                                 n.operands.size() + i + 1,
                                                 describe_expr(s.program, id)));
    }
    b.int_args.push_back(*v);
  }
  return Status::ok();
}

Status bind_cast(BindState& s, ValueId id, std::vector<int64_t> dims) {
  const Node& n = s.program.nodes[id];
  BoundNode& b = s.bound.nodes[id];
  if (n.op != OpKind::AsBool && b.int_args.size() != 1) {
    return make_error(StatusCode::kTypeError, "{}{} needs a bit width, as in {}(X, 32)",
                      where(n.loc), op_name(n.op), op_name(n.op));
  }
  std::string expected;
  int64_t bits = b.int_args.empty() ? 1 : b.int_args[0];
  std::optional<DType> target = cast_target(n.op, bits, &expected);
  if (!target) {
    return make_error(StatusCode::kTypeError, "{}{} has no {}-bit form (widths: {}) in '{}'",
                      where(n.loc), op_name(n.op), bits, expected, describe_expr(s.program, id));
  }
  // Operands convert straight to the target: the compute dtype is the result dtype.
  b.shape = Shape(*target, std::move(dims));
  b.compute_dtype = *target;
  b.weak = false;
  return Status::ok();
}

// The operand's bits, read as the other domain's type of the same width.
Status bind_bitcast(BindState& s, ValueId id, std::vector<int64_t> dims) {
  const Node& n = s.program.nodes[id];
  DType from = s.bound.nodes[n.operands[0]].shape.dtype;
  std::optional<DType> target = bitcast_target(from);
  if (!target) {
    return make_error(StatusCode::kTypeError,
                      "{}bitcast needs a 32- or 64-bit float or integer, but '{}' is {} in '{}'",
                      where(n.loc), describe(s.program, n.operands[0]), dtype_name(from),
                      describe_expr(s.program, id));
  }
  BoundNode& b = s.bound.nodes[id];
  b.shape = Shape(*target, std::move(dims));
  b.compute_dtype = from;  // the operand is read as it is
  b.weak = false;
  return Status::ok();
}

Status bind_typed(BindState& s, ValueId id, std::vector<int64_t> dims) {
  const Node& n = s.program.nodes[id];
  std::vector<TypedOperand> operands = typed_operands(s, n);
  size_t bad = 0;
  auto types = elementwise_types(n.op, operands, &bad);
  if (!types) {
    if (types.status().code() != StatusCode::kTypeError) return types.status();
    return make_error(StatusCode::kTypeError,
                      "{}bitwise operator '{}' needs integer or bool operands, but '{}' is {} in "
                      "'{}'",
                      where(n.loc), op_display(n.op), describe(s.program, n.operands[bad]),
                      dtype_name(operands[bad].dtype), describe_expr(s.program, id));
  }
  BoundNode& b = s.bound.nodes[id];
  b.shape = Shape(types->result, std::move(dims));
  b.compute_dtype = types->compute;
  b.weak = types->weak;
  return Status::ok();
}

}  // namespace

Expected<std::vector<int64_t>> broadcast_operands(const BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  std::vector<int64_t> acc;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    const auto& dk = s.bound.nodes[n.operands[k]].shape.dims;
    auto next = broadcast_dims(acc, dk);
    if (next) {
      acc = std::move(*next);
      continue;
    }
    // Broadcasting is pairwise: some earlier operand clashes with this one on its own.
    size_t j = 0;
    while (j + 1 < k && broadcast_dims(s.bound.nodes[n.operands[j]].shape.dims, dk)) ++j;
    return make_error(StatusCode::kTypeError, "{}cannot broadcast {} with {} in '{}'", where(n.loc),
                      describe_with_shape(s, n.operands[j]), describe_with_shape(s, n.operands[k]),
                      describe_expr(s.program, id));
  }
  return acc;
}

Status bind_elementwise(BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  if (static_cast<int>(n.operands.size()) != op_arity(n.op)) {
    return make_error(StatusCode::kInternal, "bind: '{}' has {} operands, expects {}",
                      op_name(n.op), n.operands.size(), op_arity(n.op));
  }
  PLAIDML_TRY(eval_int_args(s, id));
  switch (op_category(n.op)) {
    case OpCategory::kStructural:
      return bind_structural(s, id);
    case OpCategory::kCast: {
      PLAIDML_ASSIGN(auto dims, broadcast_operands(s, id));
      return bind_cast(s, id, std::move(dims));
    }
    case OpCategory::kBitcast: {
      PLAIDML_ASSIGN(auto dims, broadcast_operands(s, id));
      return bind_bitcast(s, id, std::move(dims));
    }
    case OpCategory::kArith:
    case OpCategory::kCompare:
    case OpCategory::kPredicate:
    case OpCategory::kBitwise:
    case OpCategory::kMath:
    case OpCategory::kNumeric:
    case OpCategory::kSelect: {
      PLAIDML_ASSIGN(auto dims, broadcast_operands(s, id));
      return bind_typed(s, id, std::move(dims));
    }
  }
  return Status(StatusCode::kInternal, "bind: unknown op category");
}

}  // namespace plaidml::ir::detail
