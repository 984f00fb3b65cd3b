// RoiAlign, as onnx's reference (onnx/reference/ops/op_roi_align.py) computes it: every
// (roi, bin row, sample row, bin column, sample column) point is one element of a 5-D tensor,
// read bilinearly with four gathers, then averaged (or maxed) over the samples of each bin.
#include "ops_quant_sample.h"

namespace plaidml::onnx_import::quant {
namespace {

// Column k of a 2-D tensor, as a 1-D tensor.
plaidml::Tensor column(NodeContext& cx, size_t i, const plaidml::Tensor& t, int64_t k) {
  plaidml::Builder& b = cx.builder();
  plaidml::IndexExpr r = b.index("r");
  plaidml::Contraction c = b.contraction({cx.dim(i, 0)});
  plaidml::OutputAccess(&c, {r}) = plaidml::Access(t, {r, cx.literal(k)});
  return c;
}

// Sample positions [R, bins, grid]: start + p * bin + (i + 0.5) * bin / grid.
plaidml::Tensor sample_coords(NodeContext& cx, const Sampler& s, const plaidml::Tensor& start,
                              const plaidml::Tensor& bin, int64_t bins, int64_t grid,
                              plaidml_dtype f) {
  plaidml::Builder& b = cx.builder();
  plaidml::IndexExpr r = b.index("r"), p = b.index("p"), i = b.index("i");
  plaidml::Contraction c = b.contraction({cx.dim(1, 0), cx.literal(bins), cx.literal(grid)});
  plaidml::OutputAccess(&c, {r, p, i}) = plaidml::Access(start, {r});
  plaidml::Tensor start3 = c;
  plaidml::Tensor bin3 = plaidml::reshape(bin, {cx.dim(1, 0), cx.literal(1), cx.literal(1)});
  plaidml::Tensor pf = cast(plaidml::index(start3, 1), f), gf = cast(plaidml::index(start3, 2), f);
  return start3 + pf * bin3 + (gf + s.c(0.5)) * bin3 / s.c(static_cast<double>(grid));
}

// One axis of the bilinear read: low and high positions and their weights, per the reference
// (clamped at 0, collapsed onto the last row at the far edge).
struct Axis {
  plaidml::Tensor low, high, wl, wh;
};

Axis axis_read(const Sampler& s, plaidml::Tensor v, int64_t size) {
  v = plaidml::max(v, s.c(0.0));
  plaidml::Tensor low = plaidml::floor(v);
  plaidml::Tensor edge = low >= s.c(static_cast<double>(size - 1));
  plaidml::Tensor last = s.c(static_cast<double>(size - 1));
  low = plaidml::select(edge, last, low);
  plaidml::Tensor high = plaidml::select(edge, last, low + s.c(1.0));
  v = plaidml::select(edge, low, v);
  plaidml::Tensor l = v - low;
  return {low, high, s.c(1.0) - l, l};
}

// Sums (or maxes) [R, oh, sr, ow, sr, C] over the sample axes 2 and 4: [R, oh, ow, C].
plaidml::Tensor pool_samples(NodeContext& cx, const plaidml::Tensor& v, bool max) {
  plaidml::Builder& b = cx.builder();
  auto i = indices(b, "s", 6);
  plaidml::Contraction c = b.contraction({v.dim(0), v.dim(1), v.dim(3), v.dim(5)});
  plaidml::OutputAccess out(&c, {i[0], i[1], i[3], i[5]});
  if (max) {
    out >= plaidml::Access(v, i);
  } else {
    out += plaidml::Access(v, i);
  }
  return c;
}

// Inputs X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R].
void roi_align(NodeContext& cx) {
  std::vector<std::string> attrs = {"mode", "output_height", "output_width", "sampling_ratio",
                                    "spatial_scale"};
  if (cx.version() >= 16) attrs.push_back("coordinate_transformation_mode");
  cx.check_attrs(attrs);
  const std::vector<plaidml_dtype> floats = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16,
                                             PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64};
  cx.require_dtype(0, floats);
  if (cx.dtype(1) != cx.dtype(0)) invalid("X and rois have different types");
  cx.require_dtype(2, {PLAIDML_DTYPE_INT64});
  if (cx.rank(0) != 4 || cx.rank(1) != 2 || cx.rank(2) != 1) invalid("RoiAlign takes X 4-D, rois 2-D, batch_indices 1-D");
  if (cx.size(1, 1) >= 0 && cx.size(1, 1) != 4) invalid("rois must have 4 columns");
  std::string mode = cx.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") invalid("RoiAlign has no mode '{}'", mode);
  std::string ctm = cx.attr_string("coordinate_transformation_mode",
                                   cx.version() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") invalid("unknown coordinate_transformation_mode '{}'", ctm);
  bool half = ctm == "half_pixel";
  int64_t oh = cx.attr_int("output_height", 1), ow = cx.attr_int("output_width", 1);
  int64_t sr = cx.attr_int("sampling_ratio", 0);
  double scale = cx.attr_float("spatial_scale", 1.0);
  if (oh < 1 || ow < 1) invalid("output_height and output_width must be 1 or more");
  if (sr < 0) invalid("sampling_ratio must be 0 or more");
  if (sr == 0) {
    unsupported("sampling_ratio 0 (an adaptive, data-dependent number of samples per bin)");
  }
  plaidml_dtype f = cx.dtype(0) == PLAIDML_DTYPE_FLOAT64 ? PLAIDML_DTYPE_FLOAT64 : PLAIDML_DTYPE_FLOAT32;
  Sampler s(cx, 0, f);
  int64_t h = s.size(0), w = s.size(1);
  plaidml::Tensor rois = cast(cx.tensor(1), f);
  double off = half ? 0.5 : 0.0;
  std::vector<plaidml::Tensor> corner;
  for (int64_t k = 0; k < 4; ++k) corner.push_back(column(cx, 1, rois, k) * s.c(scale) - s.c(off));
  plaidml::Tensor rw = corner[2] - corner[0], rh = corner[3] - corner[1];
  if (!half) {
    rw = plaidml::max(rw, s.c(1.0));
    rh = plaidml::max(rh, s.c(1.0));
  }
  plaidml::Tensor bin_h = rh / s.c(static_cast<double>(oh)), bin_w = rw / s.c(static_cast<double>(ow));
  plaidml::IndexExpr nr = cx.dim(1, 0), one = cx.literal(1);
  plaidml::Tensor y = plaidml::reshape(sample_coords(cx, s, corner[1], bin_h, oh, sr, f),
                                       {nr, cx.literal(oh), cx.literal(sr), one, one});
  plaidml::Tensor x = plaidml::reshape(sample_coords(cx, s, corner[0], bin_w, ow, sr, f),
                                       {nr, one, one, cx.literal(ow), cx.literal(sr)});
  plaidml::Tensor outside = (y < s.c(-1.0)) | (y > s.c(static_cast<double>(h))) |
                            (x < s.c(-1.0)) | (x > s.c(static_cast<double>(w)));
  Axis ay = axis_read(s, y, h), ax = axis_read(s, x, w);
  plaidml::Tensor batch = plaidml::reshape(cx.tensor(2), {nr, one, one, one, one});
  std::optional<plaidml::Tensor> acc;
  for (int corner_y = 0; corner_y < 2; ++corner_y) {
    for (int corner_x = 0; corner_x < 2; ++corner_x) {
      plaidml::Tensor wt = (corner_y ? ay.wh : ay.wl) * (corner_x ? ax.wh : ax.wl);
      wt = plaidml::select(outside, s.c(0.0), wt);
      plaidml::Tensor v = s.gather(batch, {Tap{corner_y ? ay.high : ay.low, std::nullopt},
                                           Tap{corner_x ? ax.high : ax.low, std::nullopt}});
      v = v * s.add_axis(wt);
      if (!acc) {
        acc = v;
      } else {
        acc = mode == "avg" ? *acc + v : plaidml::max(*acc, v);
      }
    }
  }
  plaidml::Tensor pooled = pool_samples(cx, *acc, mode == "max");
  if (mode == "avg") pooled = pooled / s.c(static_cast<double>(sr * sr));
  plaidml::Tensor out = transpose(pooled, {0, 3, 1, 2});
  cx.set_output(0, cast(out, cx.dtype(0)), cx.dtype(0));
}

}  // namespace

std::vector<ConverterEntry> roi_converters() {
  return {
      {"RoiAlign", {10, 16, 22}, roi_align},
  };
}

}  // namespace plaidml::onnx_import::quant
