// ONNX operators: misc group. CumSum, CumProd, Compress (here); the losses (ops_misc_loss.cc).
//
// Not converted, so the importer reports them as unsupported operators: Bernoulli and the
// Random* ops (nondeterministic), NonMaxSuppression (a data-dependent output size), and the
// control flow ops If, Loop and Scan (their subgraphs would need the importer to import nested
// graphs; If with a condition known at import could import the chosen branch, but the converter
// API has no way to import a subgraph's nodes).
#include <algorithm>

#include "ops_reduce_util.h"

namespace plaidml::onnx_import {
namespace {

using namespace reduce_util;  // NOLINT

// One scan of the op library along axis, with ONNX's exclusive and reverse.
plaidml::Tensor scan_along(NodeContext& cx, const char* op, const plaidml::Tensor& x,
                           int64_t axis) {
  plaidml::Attrs attrs;
  attrs.set("axis", axis)
      .set("exclusive", cx.attr_int("exclusive", 0) != 0 ? 1 : 0)
      .set("reverse", cx.attr_int("reverse", 0) != 0 ? 1 : 0);
  return plaidml::op(op, {x}, attrs);
}

// CumSum and CumProd: the op library's cumsum and cumprod (numpy's, with ONNX's exclusive and
// reverse; an exclusive product starts at 1). An axis known only at run time (the output shape
// does not depend on it) selects among the scans along every axis: rank times the work, so a
// constant axis is far better.
template <const char* kOp>
void scan(NodeContext& cx) {
  cx.check_attrs({"exclusive", "reverse"});
  cx.require_dtype(0, kNumeric);
  cx.require_dtype(1, {PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64});
  if (cx.rank(1) > 1) invalid("input 'axis' must be a scalar");
  size_t rank = cx.rank(0);
  if (rank == 0) invalid("{} needs an input of rank >= 1", cx.op_type());
  plaidml::Tensor x = cx.tensor(0);
  plaidml_dtype dtype = cx.dtype(0);
  if (is_half(dtype)) x = plaidml::as_float(x, 32);  // see is_half (exclusive, empty)
  auto finish = [&](const plaidml::Tensor& r) {
    cx.set_output(0, is_half(dtype) ? to_half(r, dtype) : r, dtype);
  };
  if (auto axis = cx.known_ints(1)) {
    if (axis->size() != 1) invalid("input 'axis' must be a scalar");
    int64_t a = static_cast<int64_t>(cx.normalize_axis((*axis)[0], rank, "axis"));
    return finish(scan_along(cx, kOp, x, a));
  }
  if (cx.rank(1) == 1 && cx.size(1, 0) != 1) invalid("input 'axis' must hold one value");
  // An axis out of [-rank, rank) matches no scan and leaves 0 (ONNX calls it an error).
  plaidml::Tensor axis = cx.tensor(1);
  plaidml::Tensor r = x.constant(int64_t{0});
  for (int64_t a = 0; a < static_cast<int64_t>(rank); ++a) {
    plaidml::Tensor hit = logical_or(plaidml::eq(axis, axis.constant(a)),
                                     plaidml::eq(axis, axis.constant(a - static_cast<int64_t>(rank))));
    r = plaidml::select(hit, scan_along(cx, kOp, x, a), r);
  }
  finish(r);
}

constexpr char kCumSum[] = "cumsum";
constexpr char kCumProd[] = "cumprod";

// Compress with the condition known at import: a gather of the selected positions along the
// axis (of the flattened input without an axis), as numpy.compress: a condition shorter than
// the axis drops the rest; a longer one may only hold false beyond it.
void compress(NodeContext& cx) {
  cx.check_attrs({"axis"});
  const HostTensor* cond = cx.host(1);
  if (cond == nullptr) {
    unsupported("input 'condition' must be known when the model is imported (the output size "
                "depends on it)");
  }
  if (cond->rank() != 1) invalid("input 'condition' must be 1-D, it has rank {}", cond->rank());
  plaidml::Tensor x = cx.tensor(0);
  size_t rank = cx.rank(0);
  int64_t size = -1;
  size_t axis = 0;
  if (cx.has_attr("axis")) {
    axis = cx.normalize_axis(cx.attr_int("axis", 0), rank, "axis");
    size = cx.size(0, axis);
  } else {
    std::vector<plaidml::IndexExpr> total = {cx.literal(1)};
    size = 1;
    for (size_t d = 0; d < rank; ++d) {
      total[0] = total[0] * x.dim(d);
      int64_t s = cx.size(0, d);
      size = (size < 0 || s < 0) ? -1 : size * s;
    }
    x = plaidml::reshape(x, total);
  }
  std::vector<int64_t> picked;
  for (int64_t i = 0; i < cond->elements(); ++i) {
    if (cond->as_int(i) != 0) picked.push_back(i);
  }
  if (!picked.empty() && size >= 0 && picked.back() >= size) {
    invalid("input 'condition' selects position {} of an axis of size {}", picked.back(), size);
  }
  if (!picked.empty() && size < 0) {
    unsupported("the size of the compressed axis must be known at import (to check that the "
                "condition selects no position beyond it)");
  }
  if (picked.empty()) {  // an empty output: a slice of nothing
    plaidml::Attrs attrs;
    attrs.set("starts", std::vector<int64_t>{0})
        .set("ends", std::vector<int64_t>{0})
        .set("axes", std::vector<int64_t>{static_cast<int64_t>(axis)});
    return cx.set_output(0, plaidml::op("slice", {x}, attrs), cx.dtype(0));
  }
  int64_t count = static_cast<int64_t>(picked.size());
  plaidml::Tensor indices = cx.constant(HostTensor::from_ints(PLAIDML_DTYPE_INT64, {count}, picked));
  plaidml::Tensor r = plaidml::op("gather", {x, indices},
                                  plaidml::Attrs().set("axis", static_cast<int64_t>(axis)));
  cx.set_output(0, r, cx.dtype(0));
}

}  // namespace

std::vector<ConverterEntry> misc_converters() {
  std::vector<ConverterEntry> list = {
      {"CumSum", {11, 14}, scan<kCumSum>},
      {"CumProd", {26}, scan<kCumProd>},
      {"Compress", {9, 11, 28}, compress},
  };
  for (auto& e : reduce_util::loss_converters()) list.push_back(std::move(e));
  return list;
}

}  // namespace plaidml::onnx_import
