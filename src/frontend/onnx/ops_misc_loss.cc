// ONNX operators: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (misc group).
//
// loss[n, d..] = -input[n, target[n, d..], d..] * weight[target[n, d..]] (weight 1 without the
// input), and 0 where target == ignore_index. "mean" divides the sum by the sum of the weights
// that apply (ignored samples count 0): with neither weights nor ignore_index that is the
// sample count. This is the ONNX function body of both ops (and PyTorch's NLLLoss); the onnx
// reference implementation's NLL alone divides by every sample when ignore_index is -1 and
// there are no weights, which contradicts the function body.
#include "ops_reduce_util.h"

namespace plaidml::onnx_import {
namespace {

using namespace reduce_util;  // NOLINT

// A bool (or any) tensor converted to the float dtype `dtype`.
plaidml::Tensor to_float(const plaidml::Tensor& x, plaidml_dtype dtype) {
  return cast_tensor(x, dtype);
}

// The coordinate along `axis` of every element of x, in the integer dtype of the target.
plaidml::Tensor coordinate(const plaidml::Tensor& x, int axis, plaidml_dtype dtype) {
  plaidml::Tensor j = plaidml::index(x, axis);  // i32
  return dtype == PLAIDML_DTYPE_INT64 ? plaidml::as_int(j, 64) : j;
}

// R[n, d..] = src[..] at the class target[n, d..]: a sum over the classes c with the condition
// target[n, d..] == class[c-access] (one match, or none for a target outside [0, C)).
plaidml::Tensor pick_class(NodeContext& cx, const plaidml::Tensor& target,
                           const plaidml::Tensor& cls, const plaidml::Tensor& src,
                           bool src_is_weight) {
  plaidml::Builder& b = cx.builder();
  size_t rank = target.rank();  // N, d..
  std::vector<plaidml::IndexExpr> out, sizes;
  for (size_t k = 0; k < rank; ++k) {
    out.push_back(b.index("t" + std::to_string(k)));
    sizes.push_back(target.dim(k));
  }
  plaidml::IndexExpr c = b.index("c");
  std::vector<plaidml::IndexExpr> in = {c};
  if (!src_is_weight) {  // input access [n, c, d..]
    in = out;
    in.insert(in.begin() + 1, c);
  }
  plaidml::Contraction r = b.contraction(sizes);
  plaidml::OutputAccess(&r, out) += plaidml::cond(
      plaidml::Access(target, out) == plaidml::Access(cls, in), plaidml::Access(src, in));
  return r;
}

// The loss of log-probabilities `lp` (N, C, d..) against input 1 (targets) and the optional
// input 2 (class weights), reduced as the `reduction` attribute says.
plaidml::Tensor nll(NodeContext& cx, const plaidml::Tensor& lp, plaidml_dtype dtype) {
  size_t rank = lp.rank();
  if (rank < 2) invalid("the input must have rank >= 2 (N, C, d..), it has rank {}", rank);
  if (cx.rank(1) != rank - 1) {
    invalid("the target must have rank {} (N, d..), it has rank {}", rank - 1, cx.rank(1));
  }
  cx.require_dtype(1, {PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64});
  std::string reduction = cx.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    invalid("attribute 'reduction' must be none, sum or mean, got '{}'", reduction);
  }
  plaidml_dtype tdt = cx.dtype(1);
  plaidml::Tensor target = cx.tensor(1);
  plaidml::Tensor loss = -pick_class(cx, target, coordinate(lp, 1, tdt), lp, false);
  std::optional<plaidml::Tensor> weight;  // per sample; none: 1
  if (cx.has_input(2)) {
    if (cx.rank(2) != 1) invalid("the weights must have rank 1 (C)");
    if (cx.dtype(2) != dtype) invalid("the weights must have the input's type");
    plaidml::Tensor w = cx.tensor(2);
    weight = pick_class(cx, target, coordinate(w, 0, tdt), w, true);
    loss = loss * *weight;
  }
  if (cx.has_attr("ignore_index")) {
    plaidml::Tensor keep = plaidml::ne(target, target.constant(cx.attr_int("ignore_index", 0)));
    plaidml::Tensor zero = loss.constant(int64_t{0});
    loss = plaidml::select(keep, loss, zero);  // also where the picked value is not finite
    weight = weight ? plaidml::select(keep, *weight, zero) : to_float(keep, dtype);
  }
  if (reduction == "none") return loss;
  std::vector<int64_t> all(rank - 1);
  for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
  if (reduction == "sum") return reduce("sum", loss, all, false);
  if (!weight) return reduce("mean", loss, all, false);
  return reduce("sum", loss, all, false) / reduce("sum", *weight, all, false);
}

void nll_loss(NodeContext& cx) {
  cx.check_attrs({"ignore_index", "reduction"});
  cx.require_dtype(0, kFloats);
  cx.set_output(0, nll(cx, cx.tensor(0), cx.dtype(0)), cx.dtype(0));
}

// SoftmaxCrossEntropyLoss: NLL of log_softmax over the class axis (1); the optional second
// output is that log_softmax.
void softmax_cross_entropy(NodeContext& cx) {
  cx.check_attrs({"ignore_index", "reduction"});
  cx.require_dtype(0, kFloats);
  if (cx.rank(0) < 2) invalid("scores must have rank >= 2 (N, C, d..)");
  plaidml::Tensor lp = plaidml::op("log_softmax", {cx.tensor(0)},
                                   plaidml::Attrs().set("axis", int64_t{1}));
  cx.set_output(0, nll(cx, lp, cx.dtype(0)), cx.dtype(0));
  cx.set_output(1, lp, cx.dtype(0));
}

}  // namespace

std::vector<ConverterEntry> reduce_util::loss_converters() {
  return {
      {"NegativeLogLikelihoodLoss", {12, 13, 22}, nll_loss},
      {"SoftmaxCrossEntropyLoss", {12, 13}, softmax_cross_entropy},
  };
}

}  // namespace plaidml::onnx_import
