// Quantization operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the
// integer / QLinear matmuls and convolutions. Only the integer quantized types plaidml has
// (int8, uint8, int16, uint16, int32 where ONNX allows it); float8, float4, int4 and int2 values
// never reach a converter (the importer refuses their tensors). The arithmetic follows onnx's
// reference: quantization rounds half to even and saturates to the type's range.
#include "ops_quant_util.h"

namespace plaidml::onnx_import {
namespace quant {

plaidml::Tensor cast(const plaidml::Tensor& t, plaidml_dtype dtype) {
  return cast_tensor(t, dtype);
}

plaidml::Tensor scalar(NodeContext& cx, plaidml_dtype dtype, double v) {
  return cx.constant(HostTensor::from_doubles(dtype, {}, {v}));
}

std::vector<plaidml::IndexExpr> indices(plaidml::Builder& b, const std::string& prefix, size_t n) {
  std::vector<plaidml::IndexExpr> out;
  for (size_t i = 0; i < n; ++i) out.push_back(b.index(prefix + std::to_string(i)));
  return out;
}

std::vector<plaidml::IndexExpr> dims_of(NodeContext& cx, size_t i) {
  std::vector<plaidml::IndexExpr> out;
  for (size_t a = 0; a < cx.rank(i); ++a) out.push_back(cx.dim(i, a));
  return out;
}

plaidml::Tensor transpose(const plaidml::Tensor& x, const std::vector<int64_t>& perm) {
  return plaidml::op("transpose", {x}, plaidml::Attrs().set("perm", perm));
}

plaidml::Attrs conv_attrs(NodeContext& cx, size_t x_input, size_t w_input) {
  size_t rank = cx.rank(x_input);
  if (rank < 3 || rank > 5) unsupported("convolution input of rank {} (plaidml supports 3 to 5)", rank);
  if (cx.rank(w_input) != rank) invalid("the weight's rank {} differs from the input's {}", cx.rank(w_input), rank);
  size_t n = rank - 2;
  std::vector<int64_t> kernel = cx.attr_ints("kernel_shape");
  for (size_t a = 0; a < n && kernel.empty(); ++a) {
    if (cx.size(w_input, 2 + a) < 0) unsupported("the weight's spatial sizes must be known");
  }
  if (!kernel.empty() && kernel.size() != n) invalid("kernel_shape must have {} entries", n);
  std::vector<int64_t> ones(n, 1);
  std::vector<int64_t> strides = cx.attr_ints("strides", ones);
  std::vector<int64_t> dilations = cx.attr_ints("dilations", ones);
  std::vector<int64_t> pads = cx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n) {
    invalid("strides, dilations and pads must have {}, {} and {} entries", n, n, 2 * n);
  }
  for (size_t a = 0; a < n; ++a) {
    if (strides[a] < 1 || dilations[a] < 1) invalid("strides and dilations must be 1 or more");
    if (pads[a] < 0 || pads[n + a] < 0) invalid("pads must be 0 or more");
    if (!kernel.empty() && cx.size(w_input, 2 + a) >= 0 && cx.size(w_input, 2 + a) != kernel[a]) {
      invalid("kernel_shape {} differs from the weight's size {}", kernel[a], cx.size(w_input, 2 + a));
    }
  }
  int64_t group = cx.attr_int("group", 1);
  if (group < 1) invalid("group must be 1 or more, got {}", group);
  std::string auto_pad = cx.attr_string("auto_pad", "NOTSET");
  plaidml::Attrs attrs;
  attrs.set("layout", "channels_first").set("kernel_layout", "OIHW");
  attrs.set("strides", strides).set("dilations", dilations).set("groups", group);
  if (auto_pad == "NOTSET") {
    attrs.set("padding", "explicit").set("pads", pads);
  } else if (auto_pad == "VALID") {
    attrs.set("padding", "valid");
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    attrs.set("padding", auto_pad == "SAME_UPPER" ? "same_upper" : "same_lower");
  } else {
    invalid("auto_pad '{}' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", auto_pad);
  }
  return attrs;
}

namespace {

// --- types ---

plaidml_dtype dtype_of_elem(int64_t elem, const char* what) {
  switch (elem) {
    case 1: return PLAIDML_DTYPE_FLOAT32;
    case 2: return PLAIDML_DTYPE_UINT8;
    case 3: return PLAIDML_DTYPE_INT8;
    case 4: return PLAIDML_DTYPE_UINT16;
    case 5: return PLAIDML_DTYPE_INT16;
    case 6: return PLAIDML_DTYPE_INT32;
    case 10: return PLAIDML_DTYPE_FLOAT16;
    case 11: return PLAIDML_DTYPE_FLOAT64;
    case 16: return PLAIDML_DTYPE_BFLOAT16;
    default:
      unsupported("{} {} is not a type plaidml supports here (float8, float4, int4 and int2 have "
                  "no plaidml dtype)", what, elem);
  }
}

// The saturation range of a quantized integer type.
std::pair<int64_t, int64_t> quant_range(plaidml_dtype t) {
  switch (t) {
    case PLAIDML_DTYPE_UINT8: return {0, 255};
    case PLAIDML_DTYPE_INT8: return {-128, 127};
    case PLAIDML_DTYPE_UINT16: return {0, 65535};
    case PLAIDML_DTYPE_INT16: return {-32768, 32767};
    case PLAIDML_DTYPE_INT32: return {INT32_MIN, INT32_MAX};
    default: unsupported("quantized type {} (plaidml has int8, uint8, int16, uint16)", dtype_text(t));
  }
}

const std::vector<plaidml_dtype>& quant_float_types() {
  static const std::vector<plaidml_dtype> v = {PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT16,
                                               PLAIDML_DTYPE_BFLOAT16};
  return v;
}

// --- scale and zero-point layouts ---

bool is_single(NodeContext& cx, size_t i) {
  return cx.rank(i) == 0 || (cx.rank(i) == 1 && cx.size(i, 0) == 1);
}

// Expands a blocked parameter p (x's rank, ceil(x.shape[axis] / block) along axis) to x's shape:
// E[.., q * block + j, ..] = P[.., q, ..] for j < block (the last block may be partial).
plaidml::Tensor expand_blocks(NodeContext& cx, size_t i, size_t axis, int64_t block) {
  plaidml::Builder& b = cx.builder();
  size_t r = cx.rank(0);
  auto idx = indices(b, "q", r);
  plaidml::IndexExpr j = b.index("j");
  std::vector<plaidml::IndexExpr> out_idx = idx;
  out_idx[axis] = idx[axis] * block + j;
  plaidml::Contraction c = b.contraction(dims_of(cx, 0));
  plaidml::OutputAccess(&c, out_idx) = plaidml::Access(cx.tensor(i), idx);
  c.where(j < block);
  return c;
}

// Scale or zero point input i shaped to broadcast against x (input 0): per tensor (0-D or one
// element), per axis (1-D along `axis`), or blocked (block > 0: x's rank, one element per block
// of `block` elements along axis).
plaidml::Tensor quant_param(NodeContext& cx, size_t i, int64_t axis_attr, int64_t block) {
  size_t r = cx.rank(0);
  if (block < 0) invalid("block_size must be 0 or more, got {}", block);
  if (block == 0 && is_single(cx, i)) return cx.tensor(i);
  size_t axis = cx.normalize_axis(axis_attr, r, "axis");
  if (block == 0) {
    if (cx.rank(i) != 1) invalid("a per-axis scale or zero point must be 1-D, not rank {}", cx.rank(i));
    if (cx.size(i, 0) >= 0 && cx.size(0, axis) >= 0 && cx.size(i, 0) != cx.size(0, axis)) {
      invalid("{} per-axis parameters for an axis of size {}", cx.size(i, 0), cx.size(0, axis));
    }
    std::vector<plaidml::IndexExpr> dims = {cx.dim(i, 0)};
    for (size_t a = axis + 1; a < r; ++a) dims.push_back(cx.literal(1));
    return plaidml::reshape(cx.tensor(i), dims);
  }
  if (cx.rank(i) != r) invalid("a blocked scale or zero point must have x's rank {}", r);
  for (size_t a = 0; a < r; ++a) {
    int64_t want = cx.size(0, a);
    if (want >= 0 && a == axis) want = (want + block - 1) / block;
    if (want >= 0 && cx.size(i, a) >= 0 && cx.size(i, a) != want) {
      invalid("blocked parameter's dim {} is {}, expected {}", a, cx.size(i, a), want);
    }
  }
  return expand_blocks(cx, i, axis, block);
}

// --- QuantizeLinear ---

// The element type of y: the zero point's, else output_dtype, else uint8.
plaidml_dtype quantize_out_type(NodeContext& cx) {
  int64_t out_attr = cx.attr_int("output_dtype", 0);
  plaidml_dtype t = out_attr ? dtype_of_elem(out_attr, "output_dtype") : PLAIDML_DTYPE_UINT8;
  if (cx.has_input(2)) {
    if (out_attr && cx.dtype(2) != t) invalid("output_dtype differs from the zero point's type");
    t = cx.dtype(2);
  }
  if (t == PLAIDML_DTYPE_INT32 || (t != PLAIDML_DTYPE_UINT8 && t != PLAIDML_DTYPE_INT8 && cx.version() < 21)) {
    invalid("QuantizeLinear-{} cannot produce {}", cx.version(), dtype_text(t));
  }
  quant_range(t);  // refuses what plaidml has no type for
  return t;
}

// y = saturate(round_half_even(x / y_scale) + y_zero_point); the division in `precision` (v23+)
// or in y_scale's type.
void quantize_linear(NodeContext& cx) {
  std::vector<std::string> attrs;
  if (cx.version() >= 13) attrs.push_back("axis");
  if (cx.version() >= 19) attrs.push_back("saturate");  // float8 only
  if (cx.version() >= 21) attrs.insert(attrs.end(), {"block_size", "output_dtype"});
  if (cx.version() >= 23) attrs.push_back("precision");
  cx.check_attrs(attrs);
  std::vector<plaidml_dtype> x_types = quant_float_types();
  x_types.push_back(PLAIDML_DTYPE_INT32);
  cx.require_dtype(0, x_types);
  cx.require_dtype(1, x_types);
  plaidml_dtype out = quantize_out_type(cx);
  int64_t prec_attr = cx.attr_int("precision", 0);
  plaidml_dtype prec = prec_attr ? dtype_of_elem(prec_attr, "precision") : cx.dtype(1);
  if (!dtype_is_float(prec)) {
    unsupported("QuantizeLinear with an integer scale (division in {})", dtype_text(prec));
  }
  int64_t axis = cx.attr_int("axis", 1), block = cx.attr_int("block_size", 0);
  plaidml::Tensor scale = cast(quant_param(cx, 1, axis, block), prec);
  plaidml::Tensor q = plaidml::round_even(cast(cx.tensor(0), prec) / scale);
  // In i64 the sum with the zero point cannot wrap; the cast saturates (NaN gives 0).
  q = cast(q, PLAIDML_DTYPE_INT64);
  if (cx.has_input(2)) q = q + cast(quant_param(cx, 2, axis, block), PLAIDML_DTYPE_INT64);
  auto [lo, hi] = quant_range(out);
  q = plaidml::max(q, scalar(cx, PLAIDML_DTYPE_INT64, static_cast<double>(lo)));
  q = plaidml::min(q, scalar(cx, PLAIDML_DTYPE_INT64, static_cast<double>(hi)));
  cx.set_output(0, cast(q, out), out);
}

// --- DequantizeLinear ---

// y = (x - x_zero_point) * x_scale, in f32 as onnx's reference computes it (f64 for an int32 x
// with a zero point, where numpy promotes so).
void dequantize_linear(NodeContext& cx) {
  std::vector<std::string> attrs;
  if (cx.version() >= 13) attrs.push_back("axis");
  if (cx.version() >= 21) attrs.push_back("block_size");
  if (cx.version() >= 23) attrs.push_back("output_dtype");
  cx.check_attrs(attrs);
  plaidml_dtype xt = cx.dtype(0);
  if (xt != PLAIDML_DTYPE_INT32) quant_range(xt);
  if (cx.version() < 21 && xt != PLAIDML_DTYPE_UINT8 && xt != PLAIDML_DTYPE_INT8 &&
      xt != PLAIDML_DTYPE_INT32) {
    invalid("DequantizeLinear-{} does not take {}", cx.version(), dtype_text(xt));
  }
  cx.require_dtype(1, quant_float_types());
  if (cx.has_input(2) && cx.dtype(2) != xt) invalid("x and x_zero_point have different types");
  int64_t out_attr = cx.attr_int("output_dtype", 0);
  plaidml_dtype out = out_attr ? dtype_of_elem(out_attr, "output_dtype") : cx.dtype(1);
  if (!dtype_is_float(out) || out == PLAIDML_DTYPE_FLOAT64) invalid("output_dtype must be a float type");
  int64_t axis = cx.attr_int("axis", 1), block = cx.attr_int("block_size", 0);
  bool wide = xt == PLAIDML_DTYPE_INT32 && cx.has_input(2);
  plaidml_dtype ct = wide ? PLAIDML_DTYPE_FLOAT64 : PLAIDML_DTYPE_FLOAT32;
  plaidml::Tensor d = cast(cx.tensor(0), ct);
  if (cx.has_input(2)) d = d - cast(quant_param(cx, 2, axis, block), ct);
  plaidml::Tensor y = d * cast(quant_param(cx, 1, axis, block), ct);
  cx.set_output(0, cast(y, out), out);
}

// --- DynamicQuantizeLinear ---

// The max (or min) of every element of x, 0-D.
plaidml::Tensor reduce_all(NodeContext& cx, bool max) {
  plaidml::Builder& b = cx.builder();
  auto idx = indices(b, "r", cx.rank(0));
  plaidml::Contraction c = b.contraction({});
  if (max) {
    plaidml::OutputAccess(&c, {}) >= plaidml::Access(cx.tensor(0), idx);
  } else {
    plaidml::OutputAccess(&c, {}) <= plaidml::Access(cx.tensor(0), idx);
  }
  return c;
}

// onnx's reference in f32: scale = (max(0, max x) - min(0, min x)) / 255 (1/255 when equal),
// zp = rint(clip(-min / scale, 0, 255)), y = clip(rint(x / scale) + zp, 0, 255).
void dynamic_quantize_linear(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, {PLAIDML_DTYPE_FLOAT32});
  const plaidml_dtype f = PLAIDML_DTYPE_FLOAT32;
  plaidml::Tensor zero = scalar(cx, f, 0.0), top = scalar(cx, f, 255.0);
  plaidml::Tensor hi = plaidml::max(reduce_all(cx, true), zero);
  plaidml::Tensor lo = plaidml::min(reduce_all(cx, false), zero);
  plaidml::Tensor range = plaidml::select(plaidml::eq(hi, lo), scalar(cx, f, 1.0), hi - lo);
  plaidml::Tensor scale = range / top;
  plaidml::Tensor zp = plaidml::round_even(plaidml::min(plaidml::max(zero - lo / scale, zero), top));
  plaidml::Tensor y = plaidml::round_even(cx.tensor(0) / scale) + zp;
  y = plaidml::min(plaidml::max(y, zero), top);
  cx.set_output(0, cast(y, PLAIDML_DTYPE_UINT8), PLAIDML_DTYPE_UINT8);
  if (cx.wants_output(1)) cx.set_output(1, scale, f);
  if (cx.wants_output(2)) cx.set_output(2, cast(zp, PLAIDML_DTYPE_UINT8), PLAIDML_DTYPE_UINT8);
}

// --- integer matmul and conv ---

void require_8bit(NodeContext& cx, size_t i) {
  cx.require_dtype(i, {PLAIDML_DTYPE_UINT8, PLAIDML_DTYPE_INT8});
}

// Input i in i32 minus its zero point (input zp, if present), which must be one value.
plaidml::Tensor centered_i32(NodeContext& cx, size_t i, size_t zp, const char* what) {
  plaidml::Tensor v = cast(cx.tensor(i), PLAIDML_DTYPE_INT32);
  if (!cx.has_input(zp)) return v;
  if (cx.dtype(zp) != cx.dtype(i)) invalid("{} and its zero point have different types", what);
  if (!is_single(cx, zp)) {
    unsupported("a per-row or per-channel zero point of {} (only one value is supported)", what);
  }
  return v - cast(cx.tensor(zp), PLAIDML_DTYPE_INT32);
}

// B's zero point: one value, or (per column) a 1-D tensor over B's last axis.
plaidml::Tensor centered_b(NodeContext& cx, size_t i, size_t zp) {
  plaidml::Tensor v = cast(cx.tensor(i), PLAIDML_DTYPE_INT32);
  if (!cx.has_input(zp)) return v;
  if (cx.dtype(zp) != cx.dtype(i)) invalid("b and b_zero_point have different types");
  if (!is_single(cx, zp) && cx.rank(zp) != 1) {
    unsupported("b_zero_point of rank {} (one value or one per column is supported)", cx.rank(zp));
  }
  return v - cast(cx.tensor(zp), PLAIDML_DTYPE_INT32);
}

void matmul_integer(NodeContext& cx) {
  cx.check_attrs({});
  require_8bit(cx, 0);
  require_8bit(cx, 1);
  if (cx.rank(0) == 0 || cx.rank(1) == 0) invalid("MatMulInteger operands must have rank 1 or more");
  if (cx.has_input(3) && !is_single(cx, 3) && cx.rank(1) < 2) invalid("per-column b_zero_point needs a matrix B");
  plaidml::Tensor a = centered_i32(cx, 0, 2, "a");
  plaidml::Tensor b = centered_b(cx, 1, 3);
  cx.set_output(0, plaidml::op("matmul", {a, b}), PLAIDML_DTYPE_INT32);
}

// W's zero point: one value, or one per output channel (reshaped onto axis 0).
plaidml::Tensor centered_w(NodeContext& cx, size_t w, size_t zp) {
  plaidml::Tensor v = cast(cx.tensor(w), PLAIDML_DTYPE_INT32);
  if (!cx.has_input(zp)) return v;
  if (cx.dtype(zp) != cx.dtype(w)) invalid("w and its zero point have different types");
  plaidml::Tensor z = cast(cx.tensor(zp), PLAIDML_DTYPE_INT32);
  if (is_single(cx, zp)) return v - z;
  if (cx.rank(zp) != 1) invalid("the weight's zero point must be 0-D or 1-D");
  std::vector<plaidml::IndexExpr> dims = {cx.dim(zp, 0)};
  for (size_t a = 1; a < cx.rank(w); ++a) dims.push_back(cx.literal(1));
  return v - plaidml::reshape(z, dims);
}

const std::vector<std::string> kConvAttrs = {"auto_pad", "dilations", "group", "kernel_shape",
                                             "pads", "strides"};

// The op library's conv skips padded points, which is padding x - x_zero_point with zeros, as
// onnx's reference does.
void conv_integer(NodeContext& cx) {
  cx.check_attrs(kConvAttrs);
  require_8bit(cx, 0);
  require_8bit(cx, 1);
  plaidml::Attrs attrs = conv_attrs(cx, 0, 1);
  plaidml::Tensor x = centered_i32(cx, 0, 2, "x");
  plaidml::Tensor w = centered_w(cx, 1, 3);
  cx.set_output(0, plaidml::op("conv", {x, w}, attrs), PLAIDML_DTYPE_INT32);
}

// saturate(round_half_even(acc * (s1 * s2 / sy)) + y_zero_point) as onnx's reference computes
// it: the scale product in the scales' type, the rest in f64 (numpy promotes int32 * float).
plaidml::Tensor requantize(NodeContext& cx, const plaidml::Tensor& acc, const plaidml::Tensor& s1,
                           const plaidml::Tensor& s2, size_t ys, size_t yzp, plaidml_dtype out) {
  const plaidml_dtype f64 = PLAIDML_DTYPE_FLOAT64;
  plaidml::Tensor m = s1 * s2 / cx.tensor(ys);
  plaidml::Tensor r = cast(acc, f64) * cast(m, f64);
  if (cx.has_input(yzp)) r = r + cast(cx.tensor(yzp), f64);
  r = plaidml::round_even(r);
  auto [lo, hi] = quant_range(out);
  r = plaidml::min(plaidml::max(r, scalar(cx, f64, static_cast<double>(lo))),
                   scalar(cx, f64, static_cast<double>(hi)));
  return cast(r, out);
}

void check_scale(NodeContext& cx, size_t i, plaidml_dtype t, bool per_channel_ok) {
  if (cx.dtype(i) != t) invalid("the scales must have one type");
  if (!is_single(cx, i) && !(per_channel_ok && cx.rank(i) == 1)) {
    unsupported("input {} must be a single scale{}", i, per_channel_ok ? " or one per channel" : "");
  }
}

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
void qlinear_matmul(NodeContext& cx) {
  cx.check_attrs({});
  require_8bit(cx, 0);
  require_8bit(cx, 3);
  plaidml_dtype st = cx.dtype(1);
  if (cx.version() < 21 && st != PLAIDML_DTYPE_FLOAT32) invalid("QLinearMatMul-10 scales must be float");
  cx.require_dtype(1, quant_float_types());
  for (size_t i : {1, 4, 6}) check_scale(cx, i, st, false);
  if (cx.rank(0) == 0 || cx.rank(3) == 0) invalid("QLinearMatMul operands must have rank 1 or more");
  plaidml::Tensor a = centered_i32(cx, 0, 2, "a");
  plaidml::Tensor b = centered_i32(cx, 3, 5, "b");
  plaidml_dtype out = cx.has_input(7) ? cx.dtype(7) : cx.dtype(0);
  require_8bit(cx, cx.has_input(7) ? 7 : 0);
  plaidml::Tensor acc = plaidml::op("matmul", {a, b});
  cx.set_output(0, requantize(cx, acc, cx.tensor(1), cx.tensor(4), 6, 7, out), out);
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
void qlinear_conv(NodeContext& cx) {
  cx.check_attrs(kConvAttrs);
  require_8bit(cx, 0);
  require_8bit(cx, 3);
  cx.require_dtype(1, {PLAIDML_DTYPE_FLOAT32});
  check_scale(cx, 1, PLAIDML_DTYPE_FLOAT32, false);
  check_scale(cx, 4, PLAIDML_DTYPE_FLOAT32, true);
  check_scale(cx, 6, PLAIDML_DTYPE_FLOAT32, false);
  plaidml::Attrs attrs = conv_attrs(cx, 0, 3);
  size_t rank = cx.rank(0);
  plaidml::Tensor x = centered_i32(cx, 0, 2, "x");
  plaidml::Tensor w = centered_w(cx, 3, 5);
  std::vector<plaidml::Tensor> operands = {x, w};
  if (cx.has_input(8)) {
    cx.require_dtype(8, {PLAIDML_DTYPE_INT32});
    if (cx.rank(8) != 1) invalid("the bias must be 1-D");
    operands.push_back(cx.tensor(8));
  }
  plaidml::Tensor acc = plaidml::op("conv", operands, attrs);
  plaidml::Tensor ws = cx.tensor(4);
  if (!is_single(cx, 4)) {  // per output channel, on axis 1 of the result
    std::vector<plaidml::IndexExpr> dims = {cx.dim(4, 0)};
    for (size_t a = 2; a < rank; ++a) dims.push_back(cx.literal(1));
    ws = plaidml::reshape(ws, dims);
  }
  plaidml_dtype out = cx.has_input(7) ? cx.dtype(7) : cx.dtype(0);
  require_8bit(cx, cx.has_input(7) ? 7 : 0);
  cx.set_output(0, requantize(cx, acc, cx.tensor(1), ws, 6, 7, out), out);
}

}  // namespace

std::vector<ConverterEntry> linear_converters() {
  return {
      {"QuantizeLinear", {10, 13, 19, 21, 23, 24, 25, 28}, quantize_linear},
      {"DequantizeLinear", {10, 13, 19, 21, 23, 24, 25, 28}, dequantize_linear},
      {"DynamicQuantizeLinear", {11}, dynamic_quantize_linear},
      {"MatMulInteger", {10}, matmul_integer},
      {"ConvInteger", {10}, conv_integer},
      {"QLinearMatMul", {10, 21}, qlinear_matmul},
      {"QLinearConv", {10}, qlinear_conv},
  };
}

}  // namespace quant

std::vector<ConverterEntry> quant_converters() {
  std::vector<ConverterEntry> all = quant::linear_converters();
  auto more = quant::sample_converters();
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

}  // namespace plaidml::onnx_import
