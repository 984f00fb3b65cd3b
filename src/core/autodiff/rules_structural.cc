// Structural ops that move values without changing them: their gradients move the values back.
#include "core/autodiff/grad_context.h"

namespace plaidml::autodiff::detail {

Status structural_rule(GradContext& cx, ValueId id, ValueId g) {
  ir::Node n = cx.node(id);
  const auto& x = n.operands;
  if (n.op == ir::OpKind::Reshape) {  // back to the operand's own (symbolic) dims
    if (cx.relevant(x[0])) cx.emit(x[0], cx.call("reshape", {g}, cx.dims(x[0])));
  } else if (n.op == ir::OpKind::Gather) {
    // gather(V, I) reads rows I of V (clamped); scatter adds g's rows back to the same clamped
    // rows, so repeated indices accumulate. The indices get no gradient.
    if (cx.relevant(x[0])) cx.emit(x[0], cx.call("scatter", {g, x[1], x[0]}));
  } else if (n.op == ir::OpKind::Scatter) {
    // scatter(E, I, V): each update row lands in row I of the result; V only gives the shape.
    if (cx.relevant(x[0])) cx.emit(x[0], cx.call("gather", {g, x[1]}));
  } else {
    return not_differentiable(cx, id, "an integer or boolean result");
  }
  return cx.status();
}

}  // namespace plaidml::autodiff::detail
