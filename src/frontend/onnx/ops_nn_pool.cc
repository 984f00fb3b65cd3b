// MaxPool, AveragePool, LpPool and the global pools. The windowed pools are contractions written
// here, not the op library's max_pool / avg_pool: ONNX has dilations, ceil_mode (whose last
// window must start inside the input or its left padding) and pads as large as the kernel,
// which the op library does not.
//   window point k of output x on an axis reads input s*x + d*k - lo (outside: not counted).
#include <algorithm>

#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {
namespace {

// The geometry of a windowed pool: per axis the start pad (lo) and the output size.
struct PoolGeometry {
  Spatial s;
  std::vector<plaidml::IndexExpr> lo, out;
  std::vector<plaidml::IndexExpr> hi;  // the end pad (for count_include_pad)
};

PoolGeometry pool_geometry(NodeContext& cx, size_t n, bool ceil_mode) {
  PoolGeometry g{read_spatial(cx, n, {}), {}, {}, {}};
  const Spatial& s = g.s;
  for (size_t a = 0; a < n; ++a) {
    plaidml::IndexExpr in = cx.dim(0, 2 + a);
    int64_t st = s.strides[a], e = extent(s, a);
    if (s.auto_pad == "SAME_UPPER" || s.auto_pad == "SAME_LOWER") {
      if (s.dilations[a] != 1) {
        // onnx's reference and onnxruntime leave the dilation out of the pad, differently.
        unsupported("pooling with auto_pad {} and dilations other than 1", s.auto_pad);
      }
      // out = ceil(in / s); total = max(0, (out - 1) * s + e - in), the odd one at the end
      // (UPPER) or the start (LOWER).
      plaidml::IndexExpr out = plaidml::floordiv(in + (st - 1), cx.literal(st));
      plaidml::IndexExpr total = plaidml::max((out - 1) * st + e - in, cx.literal(0));
      plaidml::IndexExpr lo = s.auto_pad == "SAME_UPPER"
                                  ? plaidml::floordiv(total, cx.literal(2))
                                  : plaidml::floordiv(total + 1, cx.literal(2));
      g.lo.push_back(lo);
      g.hi.push_back(total - lo);
      g.out.push_back(out);
      continue;
    }
    int64_t lo = s.auto_pad == "VALID" ? 0 : s.pads[a];
    int64_t hi = s.auto_pad == "VALID" ? 0 : s.pads[n + a];
    plaidml::IndexExpr span = in + (lo + hi - e);
    plaidml::IndexExpr out = plaidml::floordiv(span, cx.literal(st)) + 1;
    if (ceil_mode) {
      // ceil, but the last window must start inside the input or the left padding.
      out = plaidml::min(plaidml::floordiv(span + (st - 1), cx.literal(st)) + 1,
                         plaidml::floordiv(in + (lo - 1), cx.literal(st)) + 1);
    }
    g.lo.push_back(cx.literal(lo));
    g.hi.push_back(cx.literal(hi));
    g.out.push_back(out);
  }
  return g;
}

// Accessors of one pooling contraction over x (rank n + 2).
struct Window {
  std::vector<plaidml::IndexExpr> out_idx, in_idx, sizes;
  std::vector<plaidml::Constraint> constraints;  // k_a < kernel_a
};

// last: x is stored channels last (layout.h), and so is the result.
Window window(NodeContext& cx, const PoolGeometry& g, bool last) {
  plaidml::Builder& b = cx.builder();
  size_t n = g.s.n;
  auto xs = indices(b, "x", n), ks = indices(b, "k", n);
  plaidml::IndexExpr bn = b.index("n"), bc = b.index("c");
  Window w{{bn}, {bn}, {cx.dim(0, 0)}, {}};
  if (!last) w = {{bn, bc}, {bn, bc}, {cx.dim(0, 0), cx.dim(0, 1)}, {}};
  for (size_t a = 0; a < n; ++a) {
    w.out_idx.push_back(xs[a]);
    w.in_idx.push_back(xs[a] * g.s.strides[a] + ks[a] * g.s.dilations[a] - g.lo[a]);
    w.sizes.push_back(g.out[a]);
    w.constraints.push_back(ks[a] < g.s.kernel[a]);
  }
  if (last) {
    w.out_idx.push_back(bc);
    w.in_idx.push_back(bc);
    w.sizes.push_back(cx.dim(0, 1));
  }
  return w;
}

// Whether the pool reads and writes x channels last.
bool pool_channels_last(NodeContext& cx) {
  return cx.is_channels_last(0) && !cx.wants_output(1);
}

// The pooled input in the order window() was made for.
plaidml::Tensor pool_input(NodeContext& cx, bool last) {
  return last ? cx.channels_last(0) : cx.tensor(0);
}

void set_pool_output(NodeContext& cx, const plaidml::Tensor& y, bool last) {
  if (last) return cx.set_output_channels_last(0, y, cx.dtype(0));
  cx.set_output(0, y, cx.dtype(0));
}

plaidml::Contraction make(NodeContext& cx, const Window& w) {
  plaidml::Contraction c = cx.builder().contraction(w.sizes);
  for (const auto& k : w.constraints) c.where(k);
  return c;
}

// The number of window points of each output position (spatial dims only; broadcasts over N
// and C) that lie inside the input (include_pad: inside the input and its pads). last: with a
// trailing axis of 1 for the channels.
plaidml::Tensor window_counts(NodeContext& cx, const PoolGeometry& g, bool include_pad, bool last) {
  plaidml::Builder& b = cx.builder();
  size_t n = g.s.n;
  auto xs = indices(b, "x", n), ks = indices(b, "k", n);
  std::vector<plaidml::IndexExpr> sizes = g.out;
  if (last) {
    xs.push_back(b.index("c"));
    sizes.push_back(cx.literal(1));
  }
  plaidml::Contraction c = b.contraction(sizes);
  for (size_t a = 0; a < n; ++a) {
    plaidml::IndexExpr pos = xs[a] * g.s.strides[a] + ks[a] * g.s.dilations[a];
    plaidml::IndexExpr in = cx.dim(0, 2 + a);
    c.where(ks[a] < g.s.kernel[a]);
    c.where(include_pad ? pos < in + g.lo[a] + g.hi[a] : pos - g.lo[a] < in);
  }
  plaidml::Tensor one = b.constant(int64_t{1});
  plaidml::OutputAccess(&c, xs) += plaidml::Access(one, {});
  return c;
}

void check_pool_input(NodeContext& cx, const std::vector<plaidml_dtype>& types) {
  cx.require_dtype(0, types);
  if (cx.rank(0) < 3) invalid("the input must have rank 3 or more, but it has rank {}", cx.rank(0));
}

bool read_ceil_mode(NodeContext& cx) {
  int64_t v = cx.attr_int("ceil_mode", 0);
  if (v != 0 && v != 1) invalid("ceil_mode must be 0 or 1");
  return v == 1;
}

// Index of the first maximum of each window, in the flattened input (storage_order 0: row
// major over [N, C, spatial...]; 1: the spatial axes column major), as int64.
plaidml::Tensor max_indices(NodeContext& cx, const Window& w, const plaidml::Tensor& y,
                            int64_t storage_order) {
  size_t rank = cx.rank(0);
  plaidml::Tensor x = cx.tensor(0);
  // flat = ((n * C + c) * S) + spatial offset, S = product of spatial sizes
  plaidml::Tensor flat = cast(plaidml::index(x, 0), PLAIDML_DTYPE_INT64);
  flat = flat * cx.size(0, 1) + cast(plaidml::index(x, 1), PLAIDML_DTYPE_INT64);
  std::vector<size_t> order;
  for (size_t a = 2; a < rank; ++a) order.push_back(a);
  if (storage_order == 1) std::reverse(order.begin(), order.end());
  for (size_t a : order) {
    flat = flat * cx.size(0, a) + cast(plaidml::index(x, static_cast<int>(a)), PLAIDML_DTYPE_INT64);
  }
  // max over the window of (Big - flat) where x equals the window's max: Big - first index.
  const int64_t big = int64_t{1} << 62;
  plaidml::Tensor rev = (flat * -1) + big;
  plaidml::Contraction m = make(cx, w);
  plaidml::OutputAccess(&m, w.out_idx) >=
      plaidml::cond(plaidml::Access(x, w.in_idx) == plaidml::Access(y, w.out_idx),
                    plaidml::Access(rev, w.in_idx));
  return (plaidml::Tensor(m) * -1) + big;
}

}  // namespace

void max_pool(NodeContext& cx) {
  cx.check_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order",
                  "strides"});
  check_pool_input(cx, {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16, PLAIDML_DTYPE_FLOAT32,
                        PLAIDML_DTYPE_FLOAT64, PLAIDML_DTYPE_INT8, PLAIDML_DTYPE_UINT8});
  PoolGeometry g = pool_geometry(cx, cx.rank(0) - 2, read_ceil_mode(cx));
  bool last = pool_channels_last(cx);
  Window w = window(cx, g, last);
  plaidml::Contraction mx = make(cx, w);
  plaidml::OutputAccess(&mx, w.out_idx) >= plaidml::Access(pool_input(cx, last), w.in_idx);
  plaidml::Tensor y = mx;
  set_pool_output(cx, y, last);
  if (cx.wants_output(1)) {
    int64_t order = cx.attr_int("storage_order", 0);
    if (order != 0 && order != 1) invalid("storage_order must be 0 or 1");
    // Column-major indices: the spec and onnx's reference disagree (the reference ignores
    // storage_order on some paths), so they are not imported.
    if (order == 1) unsupported("MaxPool's Indices output with storage_order=1");
    for (size_t a = 1; a < cx.rank(0); ++a) {
      if (cx.size(0, a) < 0) unsupported("MaxPool's Indices output needs known input sizes");
    }
    cx.set_output(1, max_indices(cx, w, y, order), PLAIDML_DTYPE_INT64);
  }
}

void average_pool(NodeContext& cx) {
  cx.check_attrs({"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape",
                  "pads", "strides"});
  check_pool_input(cx, float_types());
  PoolGeometry g = pool_geometry(cx, cx.rank(0) - 2, read_ceil_mode(cx));
  int64_t include = cx.attr_int("count_include_pad", 0);
  if (include != 0 && include != 1) invalid("count_include_pad must be 0 or 1");
  bool last = pool_channels_last(cx);
  Window w = window(cx, g, last);
  plaidml::Contraction sum = make(cx, w);
  plaidml::OutputAccess(&sum, w.out_idx) += plaidml::Access(pool_input(cx, last), w.in_idx);
  plaidml::Tensor y = plaidml::Tensor(sum) / window_counts(cx, g, include == 1, last);
  set_pool_output(cx, y, last);
}

void lp_pool(NodeContext& cx) {
  cx.check_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"});
  check_pool_input(cx, float_types());
  PoolGeometry g = pool_geometry(cx, cx.rank(0) - 2, read_ceil_mode(cx));
  double p = cx.attr_float("p", 2.0);
  if (p <= 0) invalid("p must be positive, got {}", p);
  bool last = pool_channels_last(cx);
  plaidml::Tensor x = pool_input(cx, last);
  plaidml::Tensor powered = p == 2.0 ? x * x : plaidml::pow(plaidml::abs(x), x.constant(p));
  Window w = window(cx, g, last);
  plaidml::Contraction sum = make(cx, w);
  plaidml::OutputAccess(&sum, w.out_idx) += plaidml::Access(powered, w.in_idx);
  plaidml::Tensor s = sum;
  plaidml::Tensor y = p == 2.0 ? plaidml::sqrt(s) : plaidml::pow(s, s.constant(1.0 / p));
  set_pool_output(cx, y, last);
}

namespace {

// The spatial axes of input 0: 2.. (channels first) or 1..rank-2 (last).
std::vector<int64_t> spatial_axes(NodeContext& cx, bool last = false) {
  if (cx.rank(0) < 3) invalid("the input must have rank 3 or more, but it has rank {}", cx.rank(0));
  std::vector<int64_t> axes;
  for (size_t a = 2; a < cx.rank(0); ++a) axes.push_back(static_cast<int64_t>(last ? a - 1 : a));
  return axes;
}

}  // namespace

void global_average_pool(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  bool last = cx.is_channels_last(0);
  set_pool_output(cx, mean_keep(pool_input(cx, last), spatial_axes(cx, last)), last);
}

void global_max_pool(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  bool last = cx.is_channels_last(0);
  plaidml::Attrs attrs;
  attrs.set("axes", spatial_axes(cx, last)).set("keepdims", 1);
  set_pool_output(cx, plaidml::op("max", {pool_input(cx, last)}, attrs), last);
}

void global_lp_pool(NodeContext& cx) {
  cx.check_attrs({"p"});
  cx.require_dtype(0, float_types());
  double p = cx.attr_float("p", 2.0);
  if (p <= 0) invalid("p must be positive, got {}", p);
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor powered = p == 2.0 ? x * x : plaidml::pow(plaidml::abs(x), x.constant(p));
  plaidml::Attrs attrs;
  attrs.set("axes", spatial_axes(cx)).set("keepdims", 1);
  plaidml::Tensor s = plaidml::op("sum", {powered}, attrs);
  plaidml::Tensor y = p == 2.0 ? plaidml::sqrt(s) : plaidml::pow(s, s.constant(1.0 / p));
  cx.set_output(0, y, cx.dtype(0));
}

}  // namespace plaidml::onnx_import::nn
