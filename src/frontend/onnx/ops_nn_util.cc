// Helpers of the nn group (ops_nn_util.h).
#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {

plaidml::Tensor cast(const plaidml::Tensor& x, plaidml_dtype dtype) {
  if (dtype_bytes(dtype) == 0) unsupported("no cast to {}", dtype_text(dtype));
  return cast_tensor(x, dtype);
}

plaidml_dtype float_dtype_of_onnx(int64_t elem_type, const char* what) {
  switch (elem_type) {
    case 1: return PLAIDML_DTYPE_FLOAT32;
    case 10: return PLAIDML_DTYPE_FLOAT16;
    case 11: return PLAIDML_DTYPE_FLOAT64;
    case 16: return PLAIDML_DTYPE_BFLOAT16;
    default: unsupported("{} {} is not a float type plaidml supports", what, elem_type);
  }
}

std::vector<plaidml::IndexExpr> indices(plaidml::Builder& b, const std::string& prefix, size_t n) {
  std::vector<plaidml::IndexExpr> out;
  for (size_t i = 0; i < n; ++i) out.push_back(b.index(prefix + std::to_string(i)));
  return out;
}

plaidml::IndexExpr dims_product(NodeContext& cx, size_t i, size_t from, size_t to) {
  int64_t known = 1;
  std::optional<plaidml::IndexExpr> expr;
  for (size_t a = from; a < to; ++a) {
    int64_t s = cx.size(i, a);
    if (s >= 0) {
      known *= s;
    } else {
      expr = expr ? *expr * cx.dim(i, a) : cx.dim(i, a);
    }
  }
  if (!expr) return cx.literal(known);
  return known == 1 ? *expr : *expr * known;
}

std::vector<plaidml::IndexExpr> dims_of(NodeContext& cx, size_t i) {
  std::vector<plaidml::IndexExpr> out;
  for (size_t a = 0; a < cx.rank(i); ++a) out.push_back(cx.dim(i, a));
  return out;
}

std::vector<plaidml::IndexExpr> reduced_dims(NodeContext& cx, size_t i, size_t from) {
  std::vector<plaidml::IndexExpr> out = dims_of(cx, i);
  for (size_t a = from; a < out.size(); ++a) out[a] = cx.literal(1);
  return out;
}

plaidml::Tensor channel_param(NodeContext& cx, size_t i, size_t rank) {
  if (cx.rank(i) != 1) invalid("input {} must have rank 1, but it has rank {}", i, cx.rank(i));
  std::vector<plaidml::IndexExpr> dims = {cx.dim(i, 0)};
  for (size_t a = 2; a < rank; ++a) dims.push_back(cx.literal(1));
  return plaidml::reshape(cx.tensor(i), dims);
}

plaidml::Tensor mean_keep(const plaidml::Tensor& x, const std::vector<int64_t>& axes) {
  return plaidml::op("mean", {x}, plaidml::Attrs().set("axes", axes).set("keepdims", 1));
}

Spatial read_spatial(NodeContext& cx, size_t n, const std::vector<int64_t>& kernel) {
  Spatial s;
  s.n = n;
  s.kernel = cx.attr_ints("kernel_shape", kernel);
  if (s.kernel.size() != n) {
    invalid("attribute 'kernel_shape' has {} entries for {} spatial axes", s.kernel.size(), n);
  }
  if (!kernel.empty()) {
    for (size_t a = 0; a < n; ++a) {
      if (kernel[a] >= 0 && kernel[a] != s.kernel[a]) {
        invalid("attribute 'kernel_shape' {} differs from the weight's spatial size {}",
                s.kernel[a], kernel[a]);
      }
    }
  }
  s.strides = cx.attr_ints("strides", std::vector<int64_t>(n, 1));
  s.dilations = cx.attr_ints("dilations", std::vector<int64_t>(n, 1));
  s.pads = cx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  s.auto_pad = cx.attr_string("auto_pad", "NOTSET");
  if (s.strides.size() != n || s.dilations.size() != n || s.pads.size() != 2 * n) {
    invalid("strides/dilations/pads must have {}/{}/{} entries", n, n, 2 * n);
  }
  for (size_t a = 0; a < n; ++a) {
    if (s.kernel[a] < 1 || s.strides[a] < 1 || s.dilations[a] < 1) {
      invalid("kernel sizes, strides and dilations must be 1 or more");
    }
  }
  for (int64_t p : s.pads) {
    if (p < 0) unsupported("negative pads ({}) are not supported", p);
  }
  if (s.auto_pad != "NOTSET" && s.auto_pad != "VALID" && s.auto_pad != "SAME_UPPER" &&
      s.auto_pad != "SAME_LOWER") {
    invalid("auto_pad '{}' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", s.auto_pad);
  }
  if (s.auto_pad != "NOTSET" && cx.has_attr("pads")) {
    bool zero = true;
    for (int64_t p : s.pads) zero = zero && p == 0;
    if (!zero) invalid("attribute 'pads' is given with auto_pad {}", s.auto_pad);
  }
  return s;
}

}  // namespace plaidml::onnx_import::nn
