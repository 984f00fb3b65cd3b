// Conv and ConvTranspose. Conv is the op library's conv (channels_first, OIHW kernels), whose
// padding rules are ONNX's; ConvTranspose is one contraction written here, because ONNX's
// output_shape (which may ask for more than the natural size, or for a shifted window) has no
// counterpart in the op library.
#include <fmt/ranges.h>

#include "layout.h"
#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {
namespace {

// The kernel's spatial sizes (known ones, -1 for symbolic) of weight input 1.
std::vector<int64_t> kernel_sizes(NodeContext& cx) {
  std::vector<int64_t> k;
  for (size_t a = 2; a < cx.rank(1); ++a) k.push_back(cx.size(1, a));
  return k;
}

// Common checks; returns the number of spatial axes.
size_t check_conv_inputs(NodeContext& cx, const char* what) {
  cx.require_dtype(0, float_types());
  for (size_t i = 1; i < 3; ++i) {
    if (cx.has_input(i) && cx.dtype(i) != cx.dtype(0)) invalid("inputs have different types");
  }
  size_t rank = cx.rank(0);
  if (rank < 3) invalid("{} input must have rank 3 or more, but it has rank {}", what, rank);
  if (cx.rank(1) != rank) invalid("the weight's rank {} differs from the input's {}", cx.rank(1), rank);
  if (cx.has_input(2) && cx.rank(2) != 1) invalid("the bias must have rank 1");
  return rank - 2;
}

// The kernel's spatial sizes, all of which must be known (kernel_shape or the weight).
std::vector<int64_t> known_kernel(NodeContext& cx, size_t n) {
  std::vector<int64_t> k = kernel_sizes(cx);
  if (cx.has_attr("kernel_shape")) return cx.attr_ints("kernel_shape");
  for (int64_t s : k) {
    if (s < 0) unsupported("the weight's spatial sizes must be known (or kernel_shape given)");
  }
  (void)n;
  return k;
}

}  // namespace

void conv(NodeContext& cx) {
  cx.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  size_t n = check_conv_inputs(cx, "Conv");
  if (n > 3) unsupported("Conv with {} spatial axes (plaidml supports 1 to 3)", n);
  Spatial s = read_spatial(cx, n, known_kernel(cx, n));
  int64_t group = cx.attr_int("group", 1);
  if (group < 1) invalid("group must be 1 or more, got {}", group);
  plaidml::Attrs attrs;
  attrs.set("strides", s.strides).set("dilations", s.dilations).set("groups", group);
  if (s.auto_pad == "NOTSET") {
    attrs.set("padding", "explicit").set("pads", s.pads);
  } else if (s.auto_pad == "VALID") {
    attrs.set("padding", "valid");
  } else {
    // ONNX SAME: out = ceil(in / stride), total pad (out - 1) * stride + extent - in, the odd
    // one at the end (UPPER) or the start (LOWER): the op library's same_upper / same_lower.
    attrs.set("padding", s.auto_pad == "SAME_UPPER" ? "same_upper" : "same_lower");
  }
  std::vector<plaidml::Tensor> operands;
  if (cx.channels_last_allowed()) {
    // Channels last, weights [spatial..., I, O] (layout.h): known weights move on the host.
    attrs.set("layout", "channels_last").set("kernel_layout", "HWIO");
    std::vector<int64_t> to_hwio;
    for (size_t a = 0; a < n; ++a) to_hwio.push_back(static_cast<int64_t>(a + 2));
    to_hwio.insert(to_hwio.end(), {1, 0});
    const Value& w = cx.input(1);
    operands = {cx.channels_last(0), w.host ? cx.constant(transpose(*w.host, to_hwio))
                                            : transpose(cx.tensor(1), to_hwio)};
  } else {
    attrs.set("layout", "channels_first").set("kernel_layout", "OIHW");
    operands = {cx.tensor(0), cx.tensor(1)};
  }
  if (cx.has_input(2)) operands.push_back(cx.tensor(2));
  plaidml::Tensor y = plaidml::op("conv", operands, attrs);
  if (cx.channels_last_allowed()) return cx.set_output_channels_last(0, y, cx.dtype(0));
  cx.set_output(0, y, cx.dtype(0));
}

namespace {

// Per spatial axis of ConvTranspose: the start pad and the output size.
struct TransposeAxis {
  int64_t lo = 0;
  std::optional<int64_t> out;  // nullopt: natural size from lo and hi
  int64_t hi = 0;
};

// ONNX ConvTranspose geometry of axis a. With output_shape, total = s * (in - 1) + op + e -
// out; SAME_UPPER puts floor(total / 2) at the start, SAME_LOWER and NOTSET the rest. onnx's
// reference uses the explicit pads (0 when absent) for NOTSET instead, so only the cases where
// both agree are imported.
TransposeAxis transpose_axis(NodeContext& cx, const Spatial& s, size_t a, int64_t op,
                             const std::vector<int64_t>& output_shape) {
  TransposeAxis t;
  int64_t e = extent(s, a);
  bool same = s.auto_pad == "SAME_UPPER" || s.auto_pad == "SAME_LOWER";
  if (output_shape.empty() && !same) {
    t.lo = s.auto_pad == "VALID" ? 0 : s.pads[a];
    t.hi = s.auto_pad == "VALID" ? 0 : s.pads[s.n + a];
    return t;
  }
  int64_t in = cx.size(0, 2 + a);
  if (in < 0) {
    unsupported("ConvTranspose with output_shape or SAME padding needs known spatial sizes");
  }
  int64_t out = output_shape.empty() ? in * s.strides[a] : output_shape[a];
  int64_t total = s.strides[a] * (in - 1) + op + e - out;
  auto floor_half = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
  if (s.auto_pad == "SAME_UPPER") {
    t.lo = floor_half(total);
  } else {
    t.lo = total - floor_half(total);
    int64_t ref_lo = s.pads[a];  // onnx's reference: the pads as given
    if (!same && t.lo != ref_lo) {
      unsupported("ConvTranspose output_shape {} with pads {} is ambiguous (the spec computes a "
                  "start pad of {}, onnx's reference uses {})", out, s.pads[a], t.lo, ref_lo);
    }
  }
  t.out = out;
  return t;
}

}  // namespace

// O[n, g*Og + o, s*x + d*k - lo] += I[n, g*Ig + i, x] * W[g*Ig + i, o, k]
void conv_transpose(NodeContext& cx) {
  cx.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                  "output_shape", "pads", "strides"});
  size_t n = check_conv_inputs(cx, "ConvTranspose");
  Spatial s = read_spatial(cx, n, known_kernel(cx, n));
  int64_t group = cx.attr_int("group", 1);
  if (group < 1) invalid("group must be 1 or more, got {}", group);
  std::vector<int64_t> op = cx.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  std::vector<int64_t> output_shape = cx.attr_ints("output_shape");
  if (op.size() != n) invalid("output_padding must have {} entries", n);
  if (output_shape.size() > n) {  // an old form gives the whole shape
    output_shape.erase(output_shape.begin(), output_shape.end() - static_cast<int64_t>(n));
  }
  if (!output_shape.empty() && output_shape.size() != n) invalid("output_shape must have {} entries", n);
  int64_t xc = cx.size(0, 1), wc = cx.size(1, 0);
  if (xc >= 0 && wc >= 0 && xc != wc) {
    invalid("the input has {} channels but the weight's axis 0 has {}", xc, wc);
  }
  if (xc < 0 || wc < 0) {  // else the contraction would skip the channels one of them lacks
    cx.require(PLAIDML_ASSERT_EQ, cx.dim(0, 1), cx.dim(1, 0),
               "the input has {0} channels but the weight's axis 0 has {1}",
               {cx.dim(0, 1), cx.dim(1, 0)});
  }
  int64_t cin = xc >= 0 ? xc : wc;
  int64_t og = cx.size(1, 1);
  if (group > 1 && (cin < 0 || og < 0)) {
    unsupported("grouped ConvTranspose needs known channel counts");
  }
  if (group > 1 && cin % group != 0) invalid("{} input channels is not a multiple of group {}", cin, group);
  plaidml::Builder& b = cx.builder();
  auto xs = indices(b, "x", n), ks = indices(b, "k", n);
  plaidml::IndexExpr nn_ = b.index("n"), i = b.index("i"), o = b.index("o");
  std::optional<plaidml::IndexExpr> g;
  if (group > 1) g = b.index("g");
  plaidml::IndexExpr ci = g ? *g * (cin / group) + i : i;
  plaidml::IndexExpr co = g ? *g * og + o : o;
  std::vector<plaidml::IndexExpr> out_idx = {nn_, co}, in_idx = {nn_, ci}, w_idx = {ci, o};
  std::vector<plaidml::IndexExpr> sizes = {cx.dim(0, 0), g ? cx.literal(og * group) : cx.dim(1, 1)};
  for (size_t a = 0; a < n; ++a) {
    TransposeAxis t = transpose_axis(cx, s, a, op[a], output_shape);
    out_idx.push_back(xs[a] * s.strides[a] + ks[a] * s.dilations[a] - t.lo);
    in_idx.push_back(xs[a]);
    w_idx.push_back(ks[a]);
    if (t.out) {
      sizes.push_back(cx.literal(*t.out));
    } else {
      sizes.push_back((cx.dim(0, 2 + a) - 1) * s.strides[a] + (op[a] + extent(s, a) - t.lo - t.hi));
    }
  }
  plaidml::Contraction c = b.contraction(sizes);
  plaidml::OutputAccess(&c, out_idx) += plaidml::Access(cx.tensor(0), in_idx) *
                                        plaidml::Access(cx.tensor(1), w_idx);
  if (g) c.where(i < cin / group);  // i stays inside its group's block of input channels
  plaidml::Tensor y = c;
  if (cx.has_input(2)) y = y + channel_param(cx, 2, n + 2);
  cx.set_output(0, y, cx.dtype(0));
}

}  // namespace plaidml::onnx_import::nn
