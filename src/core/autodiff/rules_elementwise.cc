// The elementwise rule table: for y = f(operands) and the adjoint g of y, each operand's
// contribution, written over g, the operands and y itself. Every rule's result has y's
// (broadcast) dims; emit_reduced sums it back to each operand's dims.
#include <cmath>

#include "core/autodiff/grad_context.h"
#include "core/ir/op_cases.h"

namespace plaidml::autodiff::detail {

using ir::OpCategory;
using ir::OpKind;

namespace {

// Local names keep the formulas short.
struct F {
  GradContext& cx;
  ValueId c(std::string_view fn, ValueId a) { return cx.call(fn, {a}); }
  ValueId c(std::string_view fn, ValueId a, ValueId b) { return cx.call(fn, {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return c("mul", a, b); }
  ValueId div(ValueId a, ValueId b) { return c("div", a, b); }
  ValueId add(ValueId a, ValueId b) { return c("add", a, b); }
  ValueId sub(ValueId a, ValueId b) { return c("sub", a, b); }
  ValueId neg(ValueId a) { return c("neg", a); }
  ValueId sq(ValueId a) { return mul(a, a); }
  ValueId k(double v) { return cx.lit(v); }
  // g where `cond` holds, else 0.
  ValueId where(ValueId cond, ValueId g) { return cx.call("select", {cond, g, k(0.0)}); }
};

// d y / d x times g for the one-operand functions; -1 for a zero gradient (piecewise constant).
ValueId unary(F& f, OpKind op, ValueId x, ValueId y, ValueId g) {
  switch (op) {
    case OpKind::Neg:
      return f.neg(g);
    case OpKind::Exp:
      return f.mul(g, y);
    case OpKind::Log:
      return f.div(g, x);
    case OpKind::Sqrt:
      return f.div(g, f.mul(f.k(2.0), y));
    case OpKind::Tanh:
      return f.mul(g, f.sub(f.k(1.0), f.sq(y)));
    case OpKind::Sin:
      return f.mul(g, f.c("cos", x));
    case OpKind::Cos:
      return f.neg(f.mul(g, f.c("sin", x)));
    case OpKind::Tan:
      return f.mul(g, f.add(f.k(1.0), f.sq(y)));
    case OpKind::Sinh:
      return f.mul(g, f.c("cosh", x));
    case OpKind::Cosh:
      return f.mul(g, f.c("sinh", x));
    case OpKind::Asin:
      return f.div(g, f.c("sqrt", f.sub(f.k(1.0), f.sq(x))));
    case OpKind::Acos:
      return f.neg(f.div(g, f.c("sqrt", f.sub(f.k(1.0), f.sq(x)))));
    case OpKind::Atan:
      return f.div(g, f.add(f.k(1.0), f.sq(x)));
    case OpKind::Asinh:
      return f.div(g, f.c("sqrt", f.add(f.sq(x), f.k(1.0))));
    case OpKind::Acosh:
      return f.div(g, f.c("sqrt", f.sub(f.sq(x), f.k(1.0))));
    case OpKind::Atanh:
      return f.div(g, f.sub(f.k(1.0), f.sq(x)));
    case OpKind::Erf:  // 2 / sqrt(pi) * exp(-x^2)
      return f.mul(g, f.mul(f.k(2.0 / std::sqrt(M_PI)), f.c("exp", f.neg(f.sq(x)))));
    case OpKind::Sigmoid:
      return f.mul(g, f.mul(y, f.sub(f.k(1.0), y)));
    case OpKind::Relu:  // 0 at x == 0 (the subgradient PlaidML and most frameworks use)
      return f.where(f.c("cmp_gt", x, f.k(0.0)), g);
    case OpKind::Abs:  // sign(0) = 0
      return f.mul(g, f.c("sign", x));
    case OpKind::Recip:
      return f.neg(f.mul(g, f.sq(y)));
    case OpKind::AsFloat:  // a float cast is the identity on values: the gradient passes
    case OpKind::AsBFloat:
      return g;
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::RoundEven:
    case OpKind::Sign:
      return -1;
    case OpKind::IsNan:
    case OpKind::IsInf:
    case OpKind::BitNot:
    case OpKind::AsInt:
    case OpKind::AsUInt:
    case OpKind::AsBool:
    case OpKind::Bitcast:
    case OpKind::Reshape:
    case OpKind::Index:
    case OpKind::ShapeOf:
    case OpKind::PrngStep:
    case OpKind::PrngState:
    case OpKind::PrngValue:
    PLAIDML_OPS_EXCEPT_ARITY_1  // every other row (op_cases.h)
      break;
  }
  return -1;
}

// The two-operand functions: the contribution to operand `w` (0: a, 1: b); only the chosen
// side is built. max/min route g to the selected operand; on a tie the first operand gets it
// (max(a, b) counts as a when a >= b, min(a, b) when a <= b).
ValueId binary(F& f, OpKind op, int w, ValueId a, ValueId b, ValueId y, ValueId g) {
  switch (op) {
    case OpKind::Add:
      return g;
    case OpKind::Sub:
      return w == 0 ? g : f.neg(g);
    case OpKind::Mul:
      return w == 0 ? f.mul(g, b) : f.mul(g, a);
    case OpKind::Div:  // d/db (a / b) = -y / b
      return w == 0 ? f.div(g, b) : f.neg(f.div(f.mul(g, y), b));
    case OpKind::Mod:  // a % b = a - b * q with q constant between jumps: q = (a - y) / b
      return w == 0 ? g : f.neg(f.mul(g, f.div(f.sub(a, y), b)));
    case OpKind::Pow:  // log(a) for d/db: NaN where a <= 0
      return w == 0 ? f.mul(g, f.mul(b, f.c("pow", a, f.sub(b, f.k(1.0)))))
                    : f.mul(g, f.mul(y, f.c("log", a)));
    case OpKind::Max:
      return f.where(w == 0 ? f.c("cmp_ge", a, b) : f.c("cmp_lt", a, b), g);
    case OpKind::Min:
      return f.where(w == 0 ? f.c("cmp_le", a, b) : f.c("cmp_gt", a, b), g);
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge:
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
    case OpKind::Shl:
    case OpKind::Shr:
    case OpKind::Gather:
    PLAIDML_OPS_EXCEPT_ARITY_2  // every other row (op_cases.h)
      break;
  }
  return -1;
}

enum class Rule { kUnary, kBinary, kSelect, kStructural, kNotDifferentiable };

// Which rule applies, from the op table: the arithmetic, float and numeric functions by their
// operand count (a new one must then give its derivative in unary() or binary(), which the
// compiler names); casts to a float type pass the gradient through; of the structural ops,
// reshape, gather and scatter move it; comparisons, bitwise ops, predicates, integer casts and
// the other structural ops have none.
Rule rule_of(OpKind op) {
  switch (op_category(op)) {
    case OpCategory::kArith:
    case OpCategory::kMath:
    case OpCategory::kNumeric:
      return op_arity(op) == 1 ? Rule::kUnary : Rule::kBinary;
    case OpCategory::kSelect:
      return Rule::kSelect;
    case OpCategory::kCast:
      return op == OpKind::AsFloat || op == OpKind::AsBFloat ? Rule::kUnary
                                                             : Rule::kNotDifferentiable;
    case OpCategory::kStructural:
      return op == OpKind::Reshape || op == OpKind::Gather || op == OpKind::Scatter
                 ? Rule::kStructural
                 : Rule::kNotDifferentiable;
    case OpCategory::kCompare:
    case OpCategory::kBitwise:
    case OpCategory::kPredicate:
    case OpCategory::kBitcast:
      return Rule::kNotDifferentiable;
  }
  return Rule::kNotDifferentiable;
}

}  // namespace

Status elementwise_rule(GradContext& cx, ValueId id, ValueId g) {
  ir::Node n = cx.node(id);
  ir::SymbolicDims dims = cx.dims(id);
  F f{cx};
  const auto& x = n.operands;
  switch (rule_of(n.op)) {
    case Rule::kUnary:
      if (cx.relevant(x[0])) cx.emit_reduced(x[0], unary(f, n.op, x[0], id, g), dims);
      break;
    case Rule::kBinary:
      for (int w = 0; w < 2; ++w) {
        if (cx.relevant(x[w])) cx.emit_reduced(x[w], binary(f, n.op, w, x[0], x[1], id, g), dims);
      }
      break;
    case Rule::kSelect:  // the condition gets no gradient
      if (cx.relevant(x[1])) cx.emit_reduced(x[1], cx.call("select", {x[0], g, f.k(0.0)}), dims);
      if (cx.relevant(x[2])) cx.emit_reduced(x[2], cx.call("select", {x[0], f.k(0.0), g}), dims);
      break;
    case Rule::kStructural:
      return structural_rule(cx, id, g);
    case Rule::kNotDifferentiable:
      return not_differentiable(
          cx, id,
          n.op == OpKind::PrngValue || n.op == OpKind::PrngStep || n.op == OpKind::PrngState
              ? "a random draw"
              : "an integer or boolean result");
  }
  return cx.status();
}

}  // namespace plaidml::autodiff::detail
