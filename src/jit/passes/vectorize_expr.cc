#include "jit/passes/vectorize_expr.h"

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {
namespace {

using ir::OpKind;
using loop::ExprKind;
using loop::ExprPtr;

bool vector_dtype(DType t) { return t == DType::F32 || t == DType::F64 || t == DType::Bool; }

// Ops whose LLVM form applies to vectors as it does to scalars (llvm_scalar.cc: instructions
// and overloaded intrinsics; the libm calls are scalar only). A table, not a switch: only this
// subset of the op table matters here.
bool vector_op(OpKind op) {
  static constexpr OpKind kOps[] = {
      OpKind::Add,   OpKind::Sub,   OpKind::Mul,     OpKind::Div,    OpKind::Neg,
      OpKind::Max,   OpKind::Min,   OpKind::Relu,    OpKind::Select, OpKind::Abs,
      OpKind::Sqrt,  OpKind::Exp,   OpKind::Log,     OpKind::Floor,  OpKind::Ceil,
      OpKind::Round, OpKind::Recip, OpKind::Sigmoid, OpKind::Sign,   OpKind::Eq,
      OpKind::Ne,    OpKind::Lt,    OpKind::Gt,      OpKind::Le,     OpKind::Ge,
  };
  for (OpKind k : kOps) {
    if (k == op) return true;
  }
  return false;
}

// Float operands only: integer and bool arithmetic keep their scalar rules (loop_ir.h).
bool float_operands(const loop::Expr& e) {
  size_t first = e.op == OpKind::Select ? 1 : 0;
  return e.args.size() > first && dtype_is_float(e.args[first]->dtype);
}

// Whether e differs between lanes: it reads j or a vector (the accumulator of an epilogue).
bool varies(const loop::Expr& e, const std::string& j) {
  if (e.lanes > 1 || (e.kind == ExprKind::kVar && e.name == j)) return true;
  for (const auto& a : e.args) {
    if (varies(*a, j)) return true;
  }
  return false;
}

}  // namespace

ExprPtr vectorize_along(const ExprPtr& e, const std::string& j, int lanes) {
  if (e->lanes == lanes) return e;
  if (e->lanes != 1) return nullptr;
  if (!varies(*e, j)) {
    return vector_dtype(e->dtype) && e->dtype != DType::Bool ? loop::broadcast(e, lanes) : nullptr;
  }
  switch (e->kind) {
    case ExprKind::kLoad: {
      auto a = loop::affine_of(*e->args[0]);
      if (!a || a->coeff(j) != 1 || e->dtype == DType::Bool || !vector_dtype(e->dtype)) {
        return nullptr;
      }
      return loop::vload(e->slot, e->dtype, e->args[0], lanes);
    }
    case ExprKind::kOp: {
      if (!vector_op(e->op) || !float_operands(*e) || !vector_dtype(e->dtype)) return nullptr;
      std::vector<ExprPtr> args;
      for (const auto& a : e->args) {
        ExprPtr v = vectorize_along(a, j, lanes);
        if (!v) return nullptr;
        args.push_back(v);
      }
      return loop::op(e->op, e->dtype, std::move(args));
    }
    case ExprKind::kConst:
    case ExprKind::kVar:
    case ExprKind::kCast:
      return nullptr;
  }
  return nullptr;
}

}  // namespace plaidml::jit::passes
