// Resize and Upsample. Interpolation is separable: each resized axis is done in turn, as onnx's
// reference does. For each output position of an axis the importer computes (from sizes and
// scales known at import) the taps of onnx's reference: n neighbour indices (clamped into the
// input) and their coefficients; the axis is then sum_j gather(x, idx_j) * coef_j (nearest: one
// gather). tf_crop_and_resize's extrapolated positions are replaced by extrapolation_value.
#include <cmath>

#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {
namespace {

struct ResizeAttrs {
  std::string mode = "nearest", coord = "half_pixel", nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false, antialias = false;
};

// The taps of one axis: taps[p] = (index, coefficient) list for output position p.
struct AxisTaps {
  int64_t out = 0;
  std::vector<std::vector<std::pair<int64_t, double>>> taps;
  std::vector<bool> extrapolated;
};

std::vector<double> coeffs(const ResizeAttrs& r, double ratio, double scale) {
  if (r.mode == "nearest") {
    bool whole = ratio == std::floor(ratio);
    // "simple" (Resize-10, as onnxruntime): ceil when downsampling, else floor.
    std::string mode = r.nearest_mode == "simple" ? (scale < 1 ? "ceil" : "floor") : r.nearest_mode;
    bool second = whole || (mode == "round_prefer_floor" ? ratio > 0.5
                            : mode == "round_prefer_ceil" ? ratio >= 0.5
                            : mode == "ceil");
    return {second ? 0.0 : 1.0, second ? 1.0 : 0.0};
  }
  double a = r.cubic_a;
  if (r.mode == "linear" && !r.antialias) return {1 - ratio, ratio};
  if (r.mode == "cubic" && !r.antialias) {
    double t = 1 - ratio;
    return {((a * (ratio + 1) - 5 * a) * (ratio + 1) + 8 * a) * (ratio + 1) - 4 * a,
            ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a};
  }
  double s = std::min(scale, 1.0);
  std::vector<double> c;
  if (r.mode == "linear") {
    int64_t start = static_cast<int64_t>(std::floor(-1 / s) + 1);
    for (int64_t i = start; i < start + 2 - 2 * start; ++i) {
      c.push_back(std::clamp(1 - std::abs((i - ratio) * s), 0.0, 1.0));
    }
  } else {
    int64_t start = static_cast<int64_t>(std::floor(-2 / s) + 1);
    for (int64_t i = start; i < 2 - start; ++i) {
      double x = std::abs(s * (i - ratio));
      double x2 = x * x, x3 = x2 * x;
      c.push_back(x <= 1 ? (a + 2) * x3 - (a + 3) * x2 + 1
                  : x < 2 ? a * x3 - 5 * a * x2 + 8 * a * x - 4 * a : 0.0);
    }
  }
  double sum = 0;
  for (double v : c) sum += v;
  for (double& v : c) v /= sum;
  return c;
}

// The source coordinate of output position y (onnx's reference _compute_x_ori).
double source_coord(const ResizeAttrs& r, double y, double scale, int64_t in, int64_t out_int,
                    double roi_lo, double roi_hi) {
  double out = scale * static_cast<double>(in);
  const std::string& m = r.coord;
  if (m == "align_corners") return out == 1 ? 0.0 : y * static_cast<double>(in - 1) / (out - 1);
  if (m == "asymmetric") return y / scale;
  if (m == "tf_crop_and_resize") {
    double x = out == 1 ? (roi_hi - roi_lo) * static_cast<double>(in - 1) / 2
                        : y * (roi_hi - roi_lo) * static_cast<double>(in - 1) / (out - 1);
    return x + roi_lo * static_cast<double>(in - 1);
  }
  if (m == "pytorch_half_pixel") return out == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  if (m == "half_pixel") return (y + 0.5) / scale - 0.5;
  if (m == "tf_half_pixel_for_nn") return (y + 0.5) / scale;
  if (m == "half_pixel_symmetric") {
    double offset = static_cast<double>(in) / 2 * (1 - static_cast<double>(out_int) / out);
    return offset + (y + 0.5) / scale - 0.5;
  }
  unsupported("coordinate_transformation_mode '{}'", m);
}

AxisTaps axis_taps(const ResizeAttrs& r, int64_t in, int64_t out, double scale, double roi_lo,
                   double roi_hi) {
  AxisTaps t;
  t.out = out;
  for (int64_t p = 0; p < out; ++p) {
    double x = source_coord(r, static_cast<double>(p), scale, in, out, roi_lo, roi_hi);
    double xi = std::floor(x);
    double ratio = x == xi ? 1.0 : x - xi;
    std::vector<double> c = coeffs(r, ratio, scale);
    int64_t n = static_cast<int64_t>(c.size());
    int64_t pad = (n + 1) / 2;
    double xp = x + static_cast<double>(pad);
    double pf = std::floor(xp), frac = xp - pf;
    int64_t off = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                             : (frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1);
    int64_t start = static_cast<int64_t>(pf) + off - pad;
    if (r.exclude_outside) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        if (start + j < 0 || start + j >= in) c[j] = 0;
        sum += c[j];
      }
      if (sum == 0) sum = 1;
      for (double& v : c) v /= sum;
    }
    std::vector<std::pair<int64_t, double>> taps;
    for (int64_t j = 0; j < n; ++j) {
      if (r.mode == "nearest" && c[j] == 0) continue;
      taps.emplace_back(std::clamp<int64_t>(start + j, 0, in - 1), c[j]);
    }
    t.taps.push_back(taps);
    t.extrapolated.push_back(r.coord == "tf_crop_and_resize" &&
                             (x < 0 || x > static_cast<double>(in - 1)));
  }
  return t;
}

// x resized along axis (rank rank) by taps; x has dtype dt (a float for non-nearest).
plaidml::Tensor apply_axis(NodeContext& cx, const plaidml::Tensor& x, size_t axis, size_t rank,
                           const AxisTaps& t, const ResizeAttrs& r, plaidml_dtype dt) {
  size_t n = 0;
  for (const auto& taps : t.taps) n = std::max(n, taps.size());
  std::vector<int64_t> cdims = {t.out};
  for (size_t a = axis + 1; a < rank; ++a) cdims.push_back(1);
  std::optional<plaidml::Tensor> sum;
  for (size_t j = 0; j < n; ++j) {
    std::vector<int64_t> idx(t.out, 0);
    std::vector<double> coef(t.out, 0.0);
    for (int64_t p = 0; p < t.out; ++p) {
      if (j < t.taps[p].size()) std::tie(idx[p], coef[p]) = t.taps[p][j];
      if (t.extrapolated[p]) coef[p] = 0.0;
    }
    plaidml::Tensor g = plaidml::op(
        "gather", {x, cx.constant(HostTensor::from_ints(PLAIDML_DTYPE_INT64, {t.out}, idx))},
        plaidml::Attrs().set("axis", static_cast<int64_t>(axis)));
    if (r.mode != "nearest" || r.coord == "tf_crop_and_resize") {
      g = g * cx.constant(HostTensor::from_doubles(dt, cdims, coef));
    }
    sum = sum ? *sum + g : g;
  }
  bool any_extra = false;
  std::vector<double> extra(t.out, 0.0);
  for (int64_t p = 0; p < t.out; ++p) {
    if (t.extrapolated[p]) extra[p] = r.extrapolation, any_extra = true;
  }
  if (any_extra) *sum = *sum + cx.constant(HostTensor::from_doubles(dt, cdims, extra));
  return *sum;
}

// The common part of Resize and Upsample once scales / sizes are known.
void resize_with(NodeContext& cx, const ResizeAttrs& r, std::vector<double> scales,
                 std::vector<int64_t> sizes, std::vector<double> roi) {
  size_t rank = cx.rank(0);
  plaidml_dtype dt = cx.dtype(0);
  bool nearest = r.mode == "nearest" && r.coord != "tf_crop_and_resize";
  if (!nearest) cx.require_dtype(0, float_types());
  if (r.mode != "nearest" && r.mode != "linear" && r.mode != "cubic") invalid("mode '{}'", r.mode);
  // f16 / bf16 interpolate in f32 (onnx's reference computes in f64 and rounds once).
  plaidml_dtype work = dt == PLAIDML_DTYPE_FLOAT16 || dt == PLAIDML_DTYPE_BFLOAT16 ? PLAIDML_DTYPE_FLOAT32 : dt;
  plaidml::Tensor x = cx.tensor(0);
  if (!nearest && work != dt) x = cast(x, work);
  for (size_t a = 0; a < rank; ++a) {
    int64_t in = cx.size(0, a);
    double lo = roi.empty() ? 0.0 : roi[a], hi = roi.empty() ? 1.0 : roi[rank + a];
    bool identity = std::abs(scales[a] - 1.0) < 1e-9 && (sizes.empty() || sizes[a] == in) &&
                    std::abs(lo) < 1e-9 && std::abs(hi - 1.0) < 1e-9;
    if (identity && (in >= 0 || sizes.empty())) continue;
    if (in < 0) unsupported("Resize of an axis whose size is not known at import");
    int64_t out = sizes.empty() ? static_cast<int64_t>(scales[a] * static_cast<double>(in)) : sizes[a];
    if (out <= 0 || in == 0) unsupported("Resize to or from an empty axis");
    x = apply_axis(cx, x, a, rank, axis_taps(r, in, out, scales[a], lo, hi), r, work);
  }
  if (!nearest && work != dt) x = cast(x, dt);
  cx.set_output(0, x, dt);
}

std::vector<double> known_floats(NodeContext& cx, size_t i, const char* what) {
  const HostTensor* h = cx.host(i);
  if (h == nullptr) {
    unsupported("input '{}' ({}) must be known when the model is imported (plaidml needs the "
                "output shape)", cx.node().input(static_cast<int>(i)), what);
  }
  return h->to_doubles();
}

}  // namespace

void resize(NodeContext& cx) {
  cx.check_attrs({"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a",
                  "exclude_outside", "extrapolation_value", "keep_aspect_ratio_policy", "mode",
                  "nearest_mode"});
  ResizeAttrs r;
  r.mode = cx.attr_string("mode", "nearest");
  if (cx.version() == 10) {
    // Version 10 has no coordinate modes: the output position maps to y / scale; nearest
    // rounds down when upsampling and up when downsampling (onnxruntime's Resize-10).
    r.coord = "asymmetric";
    r.nearest_mode = "simple";
  } else {
    r.coord = cx.attr_string("coordinate_transformation_mode", "half_pixel");
    r.nearest_mode = cx.attr_string("nearest_mode", "round_prefer_floor");
  }
  r.cubic_a = cx.attr_float("cubic_coeff_a", -0.75);
  r.exclude_outside = cx.attr_int("exclude_outside", 0) != 0;
  r.extrapolation = cx.attr_float("extrapolation_value", 0.0);
  r.antialias = cx.attr_int("antialias", 0) != 0;
  if (r.antialias && r.mode == "nearest") invalid("antialias with mode nearest");
  if (cx.version() > 10 && r.nearest_mode != "round_prefer_floor" && r.nearest_mode != "round_prefer_ceil" &&
      r.nearest_mode != "floor" && r.nearest_mode != "ceil") {
    invalid("nearest_mode '{}'", r.nearest_mode);
  }
  size_t rank = cx.rank(0);
  std::vector<int64_t> axes;
  for (int64_t a : cx.attr_ints("axes")) axes.push_back(cx.normalize_axis(a, rank, "axes"));
  if (axes.empty()) {
    for (size_t a = 0; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  }
  size_t scales_in = cx.version() == 10 ? 1 : 2;
  std::vector<double> given_scales, roi_given;
  std::vector<int64_t> given_sizes;
  if (cx.has_input(scales_in)) given_scales = known_floats(cx, scales_in, "scales");
  if (given_scales.empty() && cx.version() > 10 && cx.has_input(3)) {
    given_sizes = cx.required_ints(3, "sizes");
  }
  if (given_scales.empty() == given_sizes.empty()) invalid("give exactly one of scales and sizes");
  if (r.coord == "tf_crop_and_resize") {
    if (!cx.has_input(1)) invalid("tf_crop_and_resize needs roi");
    roi_given = known_floats(cx, 1, "roi");
  }
  size_t k = axes.size();
  if ((!given_scales.empty() && given_scales.size() != k) ||
      (!given_sizes.empty() && given_sizes.size() != k) ||
      (!roi_given.empty() && roi_given.size() != 2 * k)) {
    invalid("scales / sizes / roi do not have one entry per resized axis");
  }
  std::vector<double> scales(rank, 1.0), roi;
  std::vector<int64_t> sizes;
  if (!roi_given.empty()) {
    roi.assign(2 * rank, 0.0);
    for (size_t a = 0; a < rank; ++a) roi[rank + a] = 1.0;
    for (size_t i = 0; i < k; ++i) roi[axes[i]] = roi_given[i], roi[rank + axes[i]] = roi_given[k + i];
  }
  if (!given_scales.empty()) {
    for (size_t i = 0; i < k; ++i) {
      if (given_scales[i] <= 0) invalid("scales must be positive");
      scales[axes[i]] = given_scales[i];
    }
  } else {
    for (size_t a = 0; a < rank; ++a) {
      sizes.push_back(cx.size(0, a));
      if (sizes.back() < 0) unsupported("Resize by sizes needs the input's sizes known at import");
    }
    std::string policy = cx.attr_string("keep_aspect_ratio_policy", "stretch");
    double pick = policy == "not_larger" ? 1e300 : 0.0;
    for (size_t i = 0; i < k; ++i) {
      double s = static_cast<double>(given_sizes[i]) / static_cast<double>(sizes[axes[i]]);
      pick = policy == "not_larger" ? std::min(pick, s) : std::max(pick, s);
      scales[axes[i]] = s;
    }
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      invalid("keep_aspect_ratio_policy '{}'", policy);
    }
    for (size_t i = 0; i < k; ++i) {
      int64_t a = axes[i];
      if (policy == "stretch") {
        sizes[a] = given_sizes[i];
      } else {
        scales[a] = pick;
        sizes[a] = static_cast<int64_t>(pick * static_cast<double>(sizes[a]) + 0.5);
      }
    }
  }
  resize_with(cx, r, scales, sizes, roi);
}

void upsample(NodeContext& cx) {
  cx.check_attrs({"mode", "scales"});
  ResizeAttrs r;
  r.mode = cx.attr_string("mode", "nearest");
  if (r.mode == "bilinear") r.mode = "linear";
  if (r.mode != "nearest" && r.mode != "linear") invalid("Upsample mode '{}'", r.mode);
  r.coord = "asymmetric";
  r.nearest_mode = "floor";
  std::vector<double> scales = cx.version() >= 9 ? known_floats(cx, 1, "scales")
                                                 : cx.attr_floats("scales");
  if (scales.size() != cx.rank(0)) invalid("scales must have one entry per axis");
  for (double s : scales) {
    if (s < 1) invalid("Upsample scales must be 1 or more");
  }
  resize_with(cx, r, scales, {}, {});
}

}  // namespace plaidml::onnx_import::nn
