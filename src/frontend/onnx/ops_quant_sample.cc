// Sampling operators: GridSample (and, in ops_quant_roi.cc, RoiAlign). Both read the input at
// positions computed at run time: the input is laid out as rows [N * spatial..., C] and read
// with Tile's gather at flat row indices, one gather per interpolation tap, each weighted and
// masked as onnx's reference (onnx/reference/ops/op_grid_sample.py) does.
#include "ops_quant_sample.h"

namespace plaidml::onnx_import::quant {

Sampler::Sampler(NodeContext& cx, size_t x_input, plaidml_dtype f) : cx_(cx), f_(f) {
  size_t rank = cx.rank(x_input);
  for (size_t a = 2; a < rank; ++a) {
    int64_t s = cx.size(x_input, a);
    if (s < 0) unsupported("the input's spatial sizes must be known at import");
    if (s == 0) unsupported("an input with an empty spatial axis");
    sizes_.push_back(s);
  }
  // [N, C, D...] -> [N, D..., C] -> rows [N * prod(D), C]
  std::vector<int64_t> perm = {0};
  for (size_t a = 2; a < rank; ++a) perm.push_back(static_cast<int64_t>(a));
  perm.push_back(1);
  int64_t p = 1;
  for (int64_t s : sizes_) p *= s;
  rows_ = plaidml::reshape(transpose(cast(cx.tensor(x_input), f), perm),
                           {cx.dim(x_input, 0) * p, cx.dim(x_input, 1)});
}

plaidml::Tensor Sampler::c(double v) const { return scalar(cx_, f_, v); }

Tap Sampler::fetch_index(const plaidml::Tensor& i, size_t d, Padding pad, bool align) const {
  double size = static_cast<double>(sizes_[d]);
  if (pad == Padding::kZeros) {
    return {clamp(i, 0.0, size - 1), (i >= c(0.0)) & (i < c(size))};
  }
  if (pad == Padding::kBorder) return {clamp(i, 0.0, size - 1), std::nullopt};
  return {clamp(truncate(reflect(i, d, align)), 0.0, size - 1), std::nullopt};
}

plaidml::Tensor Sampler::clamp(const plaidml::Tensor& x, double lo, double hi) const {
  return plaidml::min(plaidml::max(x, c(lo)), c(hi));
}

plaidml::Tensor Sampler::truncate(const plaidml::Tensor& x) const {
  return plaidml::select(x < c(0.0), plaidml::ceil(x), plaidml::floor(x));
}

// onnx's _gs_reflect: mirror at the near border until inside [lo, hi].
plaidml::Tensor Sampler::reflect(const plaidml::Tensor& v, size_t d, bool align) const {
  double lo = align ? 0.0 : -0.5;
  double hi = align ? static_cast<double>(sizes_[d]) - 1 : static_cast<double>(sizes_[d]) - 0.5;
  double range = hi - lo;
  if (range <= 0) unsupported("reflection padding over an axis of size 1 with align_corners");
  plaidml::Tensor below = v < c(lo), above = v > c(hi);
  plaidml::Tensor dx = plaidml::select(below, c(lo) - v, v - c(hi));
  plaidml::Tensor n = plaidml::floor(dx / c(range));
  plaidml::Tensor r = dx - n * c(range);
  plaidml::Tensor even = plaidml::eq(n - plaidml::floor(n / c(2.0)) * c(2.0), c(0.0));
  plaidml::Tensor from_lo = c(lo) + r, from_hi = c(hi) - r;
  plaidml::Tensor out = plaidml::select(above, plaidml::select(even, from_hi, from_lo), v);
  return plaidml::select(below, plaidml::select(even, from_lo, from_hi), out);
}

plaidml::Tensor Sampler::gather(const plaidml::Tensor& batch, const std::vector<Tap>& taps) const {
  int64_t p = 1;
  for (int64_t s : sizes_) p *= s;
  plaidml::Tensor flat = batch * p;
  int64_t stride = p;
  std::optional<plaidml::Tensor> valid;
  for (size_t d = 0; d < taps.size(); ++d) {
    stride /= sizes_[d];
    flat = flat + cast(taps[d].index, PLAIDML_DTYPE_INT32) * stride;
    if (taps[d].valid) valid = valid ? (*valid & *taps[d].valid) : *taps[d].valid;
  }
  plaidml::Tensor v = plaidml::call("gather", {*rows_, flat});  // [..., C]
  if (valid) v = plaidml::select(add_axis(*valid), v, c(0.0));
  return v;
}

plaidml::Tensor Sampler::add_axis(const plaidml::Tensor& t) const {
  std::vector<plaidml::IndexExpr> dims;
  for (size_t a = 0; a < t.rank(); ++a) dims.push_back(t.dim(a));
  dims.push_back(plaidml::detail::literal_of(t, 1));
  return plaidml::reshape(t, dims);
}

namespace {

enum class Mode { kNearest, kLinear, kCubic };

// One axis's taps: (index, weight) pairs, the indices as floats holding integers.
struct AxisTaps {
  std::vector<plaidml::Tensor> index, weight;
};

// Keys' cubic convolution coefficients (alpha = -0.75) for the fraction t in [0, 1).
std::vector<plaidml::Tensor> cubic_coeffs(const Sampler& s, const plaidml::Tensor& t) {
  const double a = -0.75;
  auto far = [&](const plaidml::Tensor& x) {  // |x| in [1, 2)
    return ((s.c(a) * x - s.c(5 * a)) * x + s.c(8 * a)) * x - s.c(4 * a);
  };
  auto near = [&](const plaidml::Tensor& x) {  // |x| in [0, 1)
    return (s.c(a + 2) * x - s.c(a + 3)) * x * x + s.c(1.0);
  };
  plaidml::Tensor one = s.c(1.0), two = s.c(2.0);
  return {far(t + one), near(t), near(one - t), far(two - t)};
}

AxisTaps axis_taps(const Sampler& s, const plaidml::Tensor& x, Mode mode) {
  AxisTaps a;
  if (mode == Mode::kNearest) {
    a.index = {s.truncate(x)};
    return a;
  }
  plaidml::Tensor x0 = plaidml::floor(x), t = x - x0;
  if (mode == Mode::kLinear) {
    a.index = {x0, x0 + s.c(1.0)};
    a.weight = {s.c(1.0) - t, t};
    return a;
  }
  a.weight = cubic_coeffs(s, t);
  for (int k = -1; k <= 2; ++k) a.index.push_back(x0 + s.c(k));
  return a;
}

// Component k (the last axis) of the grid, as F.
plaidml::Tensor grid_component(NodeContext& cx, const plaidml::Tensor& g, size_t k) {
  plaidml::Builder& b = cx.builder();
  size_t r = cx.rank(1);
  auto idx = indices(b, "g", r - 1);
  std::vector<plaidml::IndexExpr> in_idx = idx;
  in_idx.push_back(cx.literal(static_cast<int64_t>(k)));
  std::vector<plaidml::IndexExpr> dims = dims_of(cx, 1);
  dims.pop_back();
  plaidml::Contraction c = b.contraction(dims);
  plaidml::OutputAccess(&c, idx) = plaidml::Access(g, in_idx);
  return c;
}

Mode read_mode(NodeContext& cx) {
  bool v16 = cx.version() < 20;
  std::string mode = cx.attr_string("mode", v16 ? "bilinear" : "linear");
  if (mode == "nearest") return Mode::kNearest;
  if (mode == (v16 ? "bilinear" : "linear")) return Mode::kLinear;
  if (mode == (v16 ? "bicubic" : "cubic")) return Mode::kCubic;
  invalid("GridSample-{} has no mode '{}'", cx.version(), mode);
}

Padding read_padding(NodeContext& cx) {
  std::string p = cx.attr_string("padding_mode", "zeros");
  if (p == "zeros") return Padding::kZeros;
  if (p == "border") return Padding::kBorder;
  if (p == "reflection") return Padding::kReflection;
  invalid("GridSample has no padding_mode '{}'", p);
}

const std::vector<plaidml_dtype> kFloats = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16,
                                            PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64};

// Y[n, c, o...] = sum over taps of w * X[n, c, idx...] with onnx's boundary rules.
void grid_sample(NodeContext& cx) {
  cx.check_attrs({"align_corners", "mode", "padding_mode"});
  cx.require_dtype(0, kFloats);
  cx.require_dtype(1, kFloats);
  size_t rank = cx.rank(0);
  if (rank < 3) invalid("GridSample's X must have rank 3 or more");
  if (cx.version() < 20 && rank != 4) invalid("GridSample-16 takes 4-D inputs only");
  if (cx.rank(1) != rank) invalid("the grid's rank {} differs from X's {}", cx.rank(1), rank);
  size_t r = rank - 2;
  if (cx.size(1, rank - 1) >= 0 && cx.size(1, rank - 1) != static_cast<int64_t>(r)) {
    invalid("the grid's last axis must have {} entries", r);
  }
  Mode mode = read_mode(cx);
  Padding pad = read_padding(cx);
  bool align = cx.attr_int("align_corners", 0) != 0;
  bool wide = cx.dtype(0) == PLAIDML_DTYPE_FLOAT64 || cx.dtype(1) == PLAIDML_DTYPE_FLOAT64;
  plaidml_dtype f = wide ? PLAIDML_DTYPE_FLOAT64 : PLAIDML_DTYPE_FLOAT32;
  Sampler s(cx, 0, f);
  plaidml::Tensor g = cast(cx.tensor(1), f);
  std::vector<AxisTaps> taps;
  std::optional<plaidml::Tensor> batch;
  for (size_t d = 0; d < r; ++d) {
    plaidml::Tensor n = grid_component(cx, g, r - 1 - d);  // the grid lists x (last axis) first
    if (!batch) batch = plaidml::index(n, 0);
    double size = static_cast<double>(s.size(d));
    plaidml::Tensor x = align ? (n + s.c(1.0)) / s.c(2.0) * s.c(size - 1)
                              : ((n + s.c(1.0)) * s.c(size) - s.c(1.0)) / s.c(2.0);
    if (mode == Mode::kNearest) x = plaidml::round_even(x);
    double lo = align ? 0.0 : -0.5, hi = align ? size - 1 : size - 0.5;
    if (pad == Padding::kBorder) {
      plaidml::Tensor out = (x < s.c(lo)) | (x > s.c(hi));
      x = plaidml::select(out, s.clamp(x, 0.0, size - 1), x);
    } else if (pad == Padding::kReflection) {
      x = s.reflect(x, d, align);
    }
    taps.push_back(axis_taps(s, x, mode));
  }
  // Every combination of one tap per axis.
  std::optional<plaidml::Tensor> sum;
  size_t per_axis = taps[0].index.size(), combos = 1;
  for (size_t d = 0; d < r; ++d) combos *= per_axis;
  for (size_t k = 0; k < combos; ++k) {
    std::vector<Tap> fetch;
    std::optional<plaidml::Tensor> w;
    size_t rest = k;
    for (size_t d = r; d-- > 0;) {
      size_t t = rest % per_axis;
      rest /= per_axis;
      fetch.insert(fetch.begin(), s.fetch_index(taps[d].index[t], d, pad, align));
      if (!taps[d].weight.empty()) w = w ? *w * taps[d].weight[t] : taps[d].weight[t];
    }
    plaidml::Tensor v = s.gather(*batch, fetch);
    if (w) v = v * s.add_axis(*w);
    sum = sum ? *sum + v : v;
  }
  // [N, O..., C] -> [N, C, O...]
  std::vector<int64_t> perm = {0, static_cast<int64_t>(rank - 1)};
  for (size_t a = 1; a + 1 < rank; ++a) perm.push_back(static_cast<int64_t>(a));
  cx.set_output(0, cast(transpose(*sum, perm), cx.dtype(0)), cx.dtype(0));
}

// The reference's base grid for AffineGrid: [prod(sizes), r + 1] rows (x, y[, z], 1), x along
// the last axis, as numpy.arange(start, stop, step) gives the coordinates.
HostTensor affine_base(const std::vector<int64_t>& sizes, bool align) {
  size_t r = sizes.size();
  int64_t p = 1;
  for (int64_t d : sizes) p *= d;
  std::vector<double> v;
  v.reserve(static_cast<size_t>(p) * (r + 1));
  for (int64_t flat = 0; flat < p; ++flat) {
    std::vector<double> row(r + 1, 1.0);
    int64_t rest = flat;
    for (size_t a = r; a-- > 0;) {
      int64_t i = rest % sizes[a];
      rest /= sizes[a];
      double d = static_cast<double>(sizes[a]);
      double coord = align ? -1.0 + static_cast<double>(i) * (2.0 / (d - 1))
                           : (-1.0 + (2.0 / d) / 2) + static_cast<double>(i) * (2.0 / d);
      row[r - 1 - a] = coord;  // x (the last axis) first
    }
    v.insert(v.end(), row.begin(), row.end());
  }
  return HostTensor::from_doubles(PLAIDML_DTYPE_FLOAT64, {p, static_cast<int64_t>(r + 1)}, v);
}

// grid[n, spatial..., k] = sum_j theta[n, k, j] * base[spatial, j], in f64 as the reference.
void affine_grid(NodeContext& cx) {
  cx.check_attrs({"align_corners"});
  cx.require_dtype(0, kFloats);
  if (cx.dtype(0) != PLAIDML_DTYPE_FLOAT32) {
    unsupported("AffineGrid on {} (onnx's reference always produces float32)", dtype_text(cx.dtype(0)));
  }
  std::vector<int64_t> size = cx.required_ints(1, "AffineGrid's size");
  if (size.size() != 4 && size.size() != 5) invalid("size must have 4 or 5 entries");
  size_t r = size.size() - 2;
  if (cx.rank(0) != 3) invalid("theta must be 3-D");
  if ((cx.size(0, 1) >= 0 && cx.size(0, 1) != static_cast<int64_t>(r)) ||
      (cx.size(0, 2) >= 0 && cx.size(0, 2) != static_cast<int64_t>(r + 1))) {
    invalid("theta must be [N, {}, {}] for size {}", r, r + 1, size.size());
  }
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  bool align = cx.attr_int("align_corners", 0) != 0;
  for (int64_t d : spatial) {
    if (d < 1) unsupported("AffineGrid with an empty spatial size");
    if (d == 1 && align) unsupported("AffineGrid with align_corners over a size-1 axis (2 / 0 steps)");
  }
  plaidml::Tensor base = cx.constant(affine_base(spatial, align));
  plaidml::Builder& b = cx.builder();
  plaidml::IndexExpr n = b.index("n"), p = b.index("p"), k = b.index("k"), j = b.index("j");
  plaidml::Contraction c = b.contraction({cx.dim(0, 0), base.dim(0), cx.literal(static_cast<int64_t>(r))});
  plaidml::OutputAccess(&c, {n, p, k}) += plaidml::Access(cast(cx.tensor(0), PLAIDML_DTYPE_FLOAT64), {n, k, j}) *
                                          plaidml::Access(base, {p, j});
  std::vector<plaidml::IndexExpr> dims = {cx.dim(0, 0)};
  for (int64_t d : spatial) dims.push_back(cx.literal(d));
  dims.push_back(cx.literal(static_cast<int64_t>(r)));
  plaidml::Tensor grid = plaidml::reshape(plaidml::Tensor(c), dims);
  cx.set_output(0, cast(grid, PLAIDML_DTYPE_FLOAT32), PLAIDML_DTYPE_FLOAT32);
}

}  // namespace

std::vector<ConverterEntry> sample_converters() {
  std::vector<ConverterEntry> all = {
      {"GridSample", {16, 20, 22}, grid_sample},
      {"AffineGrid", {20}, affine_grid},
  };
  auto more = roi_converters();
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace plaidml::onnx_import::quant
