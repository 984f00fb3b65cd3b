// Image rearrangements whose output shape comes from an input that must be known at import:
// CenterCropPad (one assign contraction with offsets), Col2Im (one sum contraction scattering
// the columns back onto the image), MaxUnpool (a scatter of the values to their flat indices).
#include <numeric>

#include "ops_sequence_util.h"

namespace plaidml::onnx_import::sequence {
namespace {

using plaidml::Tensor;

// --- CenterCropPad -------------------------------------------------------------------------

// Per axis: a longer input is cropped from floor((n - s) / 2), a shorter one placed at
// floor((s - n) / 2) among zeros. The sizes of the named axes must be known.
void center_crop_pad(NodeContext& cx) {
  cx.check_attrs({"axes"});
  cx.require_dtype(0, all_types());
  size_t rank = cx.rank(0);
  std::vector<int64_t> shape = cx.required_ints(1, "the target shape");
  std::vector<int64_t> axes;
  if (cx.has_attr("axes")) {
    for (int64_t a : cx.attr_ints("axes")) {
      axes.push_back(static_cast<int64_t>(cx.normalize_axis(a, rank, "axis")));
    }
  } else {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (axes.size() != shape.size()) {
    invalid("input 'shape' has {} values for {} axes", shape.size(), axes.size());
  }
  Tensor x = cx.tensor(0);
  plaidml_dtype dtype = cx.dtype(0);
  if (dtype == PLAIDML_DTYPE_BOOL) x = plaidml::as_uint(x, 8);
  std::vector<plaidml::IndexExpr> sizes = dims_of(x);
  auto out = indices(cx, "o", rank);
  std::vector<plaidml::IndexExpr> in = out;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i], s = shape[i], n = cx.size(0, a);
    if (seen[a]) invalid("axis {} is named twice", a);
    seen[a] = true;
    if (s < 0) invalid("input 'shape' has a negative size {}", s);
    if (n < 0) unsupported("the size of axis {} must be known at import", a);
    sizes[a] = cx.literal(s);
    // output o reads input o + (crop start) - (pad start)
    in[a] = out[a] + (n > s ? (n - s) / 2 : 0) - (s > n ? (s - n) / 2 : 0);
  }
  plaidml::Contraction k = cx.builder().contraction(sizes);
  plaidml::OutputAccess(&k, out) = plaidml::Access(x, in);
  Tensor r = k;
  if (dtype == PLAIDML_DTYPE_BOOL) r = plaidml::as_bool(r);
  cx.set_output(0, r, dtype);
}

// --- Col2Im --------------------------------------------------------------------------------

// input [N, C * prod(block), L] -> [N, C, image...]: column (kernel offset k, block b) adds into
// image position b * stride - pad_lo + k * dilation (positions outside the image are dropped).
void col2im(NodeContext& cx) {
  cx.check_attrs({"dilations", "pads", "strides"});
  cx.require_dtype(0, numeric_types());
  if (cx.rank(0) != 3) invalid("Col2Im needs a 3-D input");
  std::vector<int64_t> image = cx.required_ints(1, "the image shape");
  std::vector<int64_t> block = cx.required_ints(2, "the block shape");
  size_t s = image.size();
  if (block.size() != s || s == 0) invalid("image_shape and block_shape must have one length");
  auto dil = cx.attr_ints("dilations", std::vector<int64_t>(s, 1));
  auto str = cx.attr_ints("strides", std::vector<int64_t>(s, 1));
  auto pads = cx.attr_ints("pads", std::vector<int64_t>(2 * s, 0));
  if (dil.size() != s || str.size() != s || pads.size() != 2 * s) {
    invalid("dilations, strides and pads must have {} ({} for pads) values", s, 2 * s);
  }
  std::vector<int64_t> blocks(s);
  int64_t bl = 1, nb = 1;
  for (size_t i = 0; i < s; ++i) {
    if (block[i] <= 0 || dil[i] <= 0 || str[i] <= 0 || image[i] < 0) {
      invalid("block shape, dilations and strides must be positive");
    }
    blocks[i] = (image[i] + pads[i] + pads[i + s] - dil[i] * (block[i] - 1) - 1) / str[i] + 1;
    if (blocks[i] <= 0) invalid("the image has no complete block along axis {}", i);
    bl *= block[i];
    nb *= blocks[i];
  }
  int64_t cb = cx.size(0, 1), len = cx.size(0, 2);
  if (cb >= 0 && cb % bl != 0) invalid("input dim 1 ({}) is not a multiple of {}", cb, bl);
  if (len >= 0 && len != nb) invalid("input dim 2 is {}, the blocks number {}", len, nb);
  Tensor x = cx.tensor(0);
  auto b = indices(cx, "b", s), k = indices(cx, "k", s);
  plaidml::IndexExpr n = cx.builder().index("n"), c = cx.builder().index("c");
  plaidml::IndexExpr col = c * bl, pos = cx.literal(0);
  std::vector<plaidml::IndexExpr> out = {n, c}, sizes = {x.dim(0), x.dim(1) / bl};
  int64_t kstride = bl, bstride = nb;
  for (size_t i = 0; i < s; ++i) {
    kstride /= block[i];
    bstride /= blocks[i];
    col = col + k[i] * kstride;
    pos = pos + b[i] * bstride;
    out.push_back(b[i] * str[i] - pads[i] + k[i] * dil[i]);
    sizes.push_back(cx.literal(image[i]));
  }
  plaidml::Contraction con = cx.builder().contraction(sizes);
  plaidml::OutputAccess(&con, out) += plaidml::Access(x, {n, col, pos});
  for (size_t i = 0; i < s; ++i) {
    con.where(k[i] < block[i]);
    con.where(b[i] < blocks[i]);
  }
  cx.set_output(0, con, cx.dtype(0));
}

// --- MaxUnpool -----------------------------------------------------------------------------

// Values go to their flat indices (over the whole output, as MaxPool's indices are) in a zero
// tensor of the inferred shape (in - 1) * stride - pads + kernel. Overlapping windows could send
// two values to one index, and an output_shape other than the inferred one is read differently
// by onnx's reference (indices over the inferred shape) and by runtimes (over output_shape):
// both are refused.
void max_unpool(NodeContext& cx) {
  cx.check_attrs({"kernel_shape", "pads", "strides"});
  cx.require_dtype(0, float_types());
  cx.require_dtype(1, {PLAIDML_DTYPE_INT64});
  size_t rank = cx.rank(0);
  if (rank < 3 || cx.rank(1) != rank) invalid("X and I must have one rank >= 3");
  size_t s = rank - 2;
  auto kernel = cx.attr_ints("kernel_shape");
  if (kernel.size() != s) invalid("attribute 'kernel_shape' must have {} values", s);
  auto str = cx.attr_ints("strides", std::vector<int64_t>(s, 1));
  auto pads = cx.attr_ints("pads", std::vector<int64_t>(2 * s, 0));
  if (str.size() != s || pads.size() != 2 * s) invalid("strides/pads have the wrong length");
  std::vector<int64_t> shape = {cx.size(0, 0), cx.size(0, 1)};
  for (size_t i = 0; i < s; ++i) {
    if (str[i] < kernel[i]) {
      unsupported("overlapping windows (stride {} < kernel {}) are not supported: an output "
                  "position may receive several values", str[i], kernel[i]);
    }
    int64_t n = cx.size(0, i + 2);
    shape.push_back(n < 0 ? -1 : (n - 1) * str[i] - pads[i] - pads[i + s] + kernel[i]);
  }
  for (int64_t d : shape) {
    if (d < 0) unsupported("the input's sizes must be known at import");
  }
  if (cx.has_input(2)) {
    auto given = cx.required_ints(2, "the output shape");
    if (given != shape) {
      unsupported("an output_shape other than the inferred one is not supported (runtimes "
                  "disagree on what the indices address)");
    }
  }
  plaidml_dtype dtype = cx.dtype(0);
  int64_t total = element_count(shape);
  Tensor x = cx.tensor(0), idx = cx.tensor(1);
  std::vector<plaidml::IndexExpr> flat_in = {cx.literal(1)};
  for (size_t i = 0; i < rank; ++i) flat_in[0] = flat_in[0] * x.dim(i);
  Tensor values = plaidml::reshape(x, flat_in);
  Tensor where = plaidml::reshape(idx, flat_in);
  // The scatter's base only gives the shape: a broadcast zero, not a stored constant.
  Tensor zero = cx.constant(HostTensor::zeros(dtype, {}));
  plaidml::IndexExpr i = cx.builder().index("i");
  plaidml::Contraction zk = cx.builder().contraction({cx.literal(total)});
  plaidml::OutputAccess(&zk, {i}) = plaidml::Access(zero, {});
  Tensor zeros = zk;
  Tensor r = plaidml::call("scatter", {values, where, zeros});
  std::vector<plaidml::IndexExpr> out;
  for (int64_t d : shape) out.push_back(cx.literal(d));
  cx.set_output(0, plaidml::reshape(r, out), dtype);
}

}  // namespace

std::vector<ConverterEntry> image_converters() {
  return {
      {"CenterCropPad", {18}, center_crop_pad},
      {"Col2Im", {18}, col2im},
      {"MaxUnpool", {9, 11, 22}, max_unpool},
  };
}

}  // namespace plaidml::onnx_import::sequence
