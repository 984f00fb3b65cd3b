// Elementwise nodes: one loop nest over the result with numpy-broadcast operand loads, and the
// scalar rules of the reference interpreter (eval/elementwise.h): operands converted to the
// compute dtype (casts convert straight to the result, a select's condition to bool), float
// functions computed in a float type, the result converted to the node's dtype.
#include <cmath>
#include <map>

#include "jit/lower/lower_context.h"

namespace plaidml::jit {

using ir::OpCategory;
using ir::OpKind;
using loop::ExprPtr;
using loop::StmtPtr;

namespace {

// The dtype operand k is converted to before the op (the interpreter's operand_dtype()); a
// bitcast reads its operand as it is (compute is the operand's dtype).
DType operand_dtype(OpKind op, DType result, DType compute, size_t k) {
  OpCategory cat = ir::op_category(op);
  if (cat == OpCategory::kCast) return result;
  if (cat == OpCategory::kSelect && k == 0) return DType::Bool;
  return compute;
}

// Float functions of integer operands run in the result's float type (f32 when the result is
// not a float: bind gives math ops a float result).
DType math_dtype(DType result, DType compute) {
  if (dtype_is_float(compute)) return compute;
  return dtype_is_float(result) ? result : DType::F32;
}

}  // namespace

ExprPtr scalar_op(OpKind kind, DType result, DType compute, std::vector<ExprPtr> args) {
  for (size_t k = 0; k < args.size(); ++k) {
    args[k] = loop::cast(operand_dtype(kind, result, compute, k), args[k]);
  }
  switch (ir::op_category(kind)) {
    case OpCategory::kCast: return args[0];
    case OpCategory::kBitcast: return loop::op(kind, result, std::move(args));
    case OpCategory::kCompare:
    case OpCategory::kPredicate: return loop::op(kind, DType::Bool, std::move(args));
    case OpCategory::kMath: {
      DType m = math_dtype(result, compute);
      for (auto& a : args) a = loop::cast(m, a);
      return loop::cast(result, loop::op(kind, m, std::move(args)));
    }
    case OpCategory::kArith:
    case OpCategory::kBitwise:
    case OpCategory::kNumeric:
    case OpCategory::kStructural: return loop::cast(result, loop::op(kind, compute, std::move(args)));
    case OpCategory::kSelect: {
      DType t = args[1]->dtype;
      return loop::cast(result, loop::op(kind, t, std::move(args)));
    }
  }
  return args[0];
}

ExprPtr elementwise_value(const LowerContext& cx, ir::ValueId v, const std::vector<ExprPtr>& coords,
                          const std::map<ir::ValueId, ExprPtr>& known) {
  const ir::Node& node = cx.node(v);
  const ir::BoundNode& bn = cx.bnode(v);
  const std::vector<int64_t>& dims = bn.shape.dims;
  DType result = cx.value_dtype(v);
  OpCategory category = ir::op_category(node.op);
  // Ops on literals only stay in the widest type of their domain (LowerContext::value_dtype).
  bool widen = bn.weak && category != OpCategory::kCast && category != OpCategory::kCompare &&
               category != OpCategory::kPredicate;
  DType compute = widen ? result : bn.compute_dtype;
  std::vector<ExprPtr> args;
  for (ir::ValueId operand : node.operands) {
    auto it = known.find(operand);
    if (it != known.end()) {
      args.push_back(it->second);
      continue;
    }
    if (cx.fusion().inlined[operand]) {  // same dims as v (fusion.h), so the same coords
      args.push_back(elementwise_value(cx, operand, coords, known));
      continue;
    }
    ExprPtr index = LowerContext::broadcast_index(cx.dims(operand), dims, coords);
    args.push_back(cx.value_at(operand, index, cx.value_dtype(operand)));
  }
  return scalar_op(node.op, result, compute, std::move(args));
}

Status lower_elementwise(LowerContext& cx, ir::ValueId v) {
  const ir::BoundNode& bn = cx.bnode(v);
  std::vector<int64_t> dims = bn.shape.dims;
  int out_slot = cx.slot_of(v);
  StmtPtr body = cx.nest(dims, "i", [&](const std::vector<ExprPtr>& coords) {
    ExprPtr value = elementwise_value(cx, v, coords, {});
    return std::vector<StmtPtr>{loop::store(out_slot, LowerContext::linear_index(dims, coords),
                                            loop::cast(cx.slot_dtype(out_slot), value))};
  });
  double elements = static_cast<double>(bn.shape.elements());
  cx.add_kernel(v, "", std::move(body), elements * (1.0 + cx.node(v).operands.size()));
  return Status::ok();
}

void lower_copy(LowerContext& cx, ir::ValueId from, int to_slot, const std::string& name) {
  std::vector<int64_t> dims = cx.out().slots[to_slot].shape.dims;
  DType dtype = cx.slot_dtype(to_slot);
  StmtPtr body = cx.nest(dims, "i", [&](const std::vector<ExprPtr>& coords) {
    ExprPtr index = LowerContext::linear_index(dims, coords);
    ExprPtr value = cx.value_at(from, LowerContext::broadcast_index(cx.dims(from), dims, coords),
                                dtype);
    return std::vector<StmtPtr>{loop::store(to_slot, index, value)};
  });
  double elements = static_cast<double>(cx.out().slots[to_slot].shape.elements());
  cx.add_kernel("copy_" + name, std::move(body), elements);
}

}  // namespace plaidml::jit
