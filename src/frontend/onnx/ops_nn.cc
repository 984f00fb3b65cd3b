// ONNX operators: nn group. The list of converters, and MatMul, Gemm, Softmax, LogSoftmax,
// Hardmax. Convolutions are in ops_nn_conv.cc, pools in ops_nn_pool.cc, normalisations in
// ops_nn_norm.cc, Einsum in ops_nn_einsum.cc, Resize/Upsample in ops_nn_resize.cc.
#include "layout.h"
#include "ops_nn_util.h"

namespace plaidml::onnx_import {
namespace nn {
namespace {

const std::vector<plaidml_dtype>& matmul_types(int version) {
  static const std::vector<plaidml_dtype> kV9 = {
      PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64, PLAIDML_DTYPE_INT32,
      PLAIDML_DTYPE_INT64,   PLAIDML_DTYPE_UINT32,  PLAIDML_DTYPE_UINT64};
  static const std::vector<plaidml_dtype> kV13 = {
      PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64,
      PLAIDML_DTYPE_INT32,   PLAIDML_DTYPE_INT64,   PLAIDML_DTYPE_UINT32,
      PLAIDML_DTYPE_UINT64,  PLAIDML_DTYPE_BFLOAT16};
  static const std::vector<plaidml_dtype> kV1 = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_FLOAT32,
                                                 PLAIDML_DTYPE_FLOAT64};
  return version >= 13 ? kV13 : version >= 9 ? kV9 : kV1;
}

void same_dtypes(NodeContext& cx, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (cx.has_input(i) && cx.dtype(i) != cx.dtype(0)) {
      invalid("inputs have different types ({} and {})", dtype_text(cx.dtype(0)),
              dtype_text(cx.dtype(i)));
    }
  }
}

// Softmax-like ops before version 13 coerce the input to 2-D at `axis` and work on the
// flattened trailing dims; from 13 on they work on one axis. Returns the tensor to work on and
// the axis within it; `restore` reshapes a result back.
struct Coerced {
  plaidml::Tensor x;
  int64_t axis;
};

Coerced coerce(NodeContext& cx, int64_t default_axis_old) {
  size_t rank = cx.rank(0);
  if (cx.version() >= 13) {
    int64_t axis = static_cast<int64_t>(cx.normalize_axis(cx.attr_int("axis", -1), rank, "axis"));
    return {cx.tensor(0), axis};
  }
  int64_t raw = cx.attr_int("axis", default_axis_old);
  // Before 13 axis may equal rank (everything in the batch part): allowed by onnx's reference.
  if (raw < -static_cast<int64_t>(rank) || raw > static_cast<int64_t>(rank)) {
    invalid("axis {} is out of range for rank {}", raw, rank);
  }
  size_t axis = static_cast<size_t>(raw < 0 ? raw + static_cast<int64_t>(rank) : raw);
  plaidml::Tensor x2 = plaidml::reshape(
      cx.tensor(0), {dims_product(cx, 0, 0, axis), dims_product(cx, 0, axis, rank)});
  return {x2, 1};
}

plaidml::Tensor restore(NodeContext& cx, const plaidml::Tensor& y) {
  if (cx.version() >= 13) return y;
  return plaidml::reshape(y, dims_of(cx, 0));
}

template <const char* kOp>
void softmax_like(NodeContext& cx) {
  cx.check_attrs({"axis"});
  cx.require_dtype(0, float_types());
  if (cx.rank(0) == 0) invalid("the input must have rank 1 or more");
  Coerced c = coerce(cx, 1);
  plaidml::Tensor y = plaidml::op(kOp, {c.x}, plaidml::Attrs().set("axis", c.axis));
  cx.set_output(0, restore(cx, y), cx.dtype(0));
}

constexpr char kSoftmax[] = "softmax";
constexpr char kLogSoftmax[] = "log_softmax";

}  // namespace

void softmax(NodeContext& cx) { softmax_like<kSoftmax>(cx); }
void log_softmax(NodeContext& cx) { softmax_like<kLogSoftmax>(cx); }

// One-hot of the first maximum along the axis (op library argmax: first index on ties).
void hardmax(NodeContext& cx) {
  cx.check_attrs({"axis"});
  cx.require_dtype(0, float_types());
  if (cx.rank(0) == 0) invalid("the input must have rank 1 or more");
  Coerced c = coerce(cx, 1);
  plaidml::Tensor am =
      plaidml::op("argmax", {c.x}, plaidml::Attrs().set("axis", c.axis).set("keepdims", 1));
  plaidml::Tensor hot = plaidml::eq(plaidml::index(c.x, static_cast<int>(c.axis)), am);
  cx.set_output(0, restore(cx, cast(hot, cx.dtype(0))), cx.dtype(0));
}

void matmul(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, matmul_types(cx.version()));
  same_dtypes(cx, 2);
  if (cx.rank(0) == 0 || cx.rank(1) == 0) invalid("MatMul operands must have rank 1 or more");
  cx.set_output(0, plaidml::op("matmul", {cx.tensor(0), cx.tensor(1)}), cx.dtype(0));
}

void gemm(NodeContext& cx) {
  cx.check_attrs({"alpha", "beta", "transA", "transB"});
  cx.require_dtype(0, matmul_types(cx.version() >= 13 ? 13 : cx.version() >= 9 ? 9 : 1));
  same_dtypes(cx, 3);
  if (cx.version() < 11 && !cx.has_input(2)) invalid("Gemm before version 11 requires C");
  if (cx.rank(0) != 2 || cx.rank(1) != 2) invalid("Gemm's A and B must have rank 2");
  double alpha = cx.attr_float("alpha", 1.0), beta = cx.attr_float("beta", 1.0);
  bool is_float = dtype_is_float(cx.dtype(0));
  plaidml::Attrs attrs;
  bool trans_b = cx.attr_int("transB", 0) != 0;
  // Known weights stored [N, K] (transB, as PyTorch's Linear exports them) move to [K, N] on the
  // host, once: the contraction then reads B's rows along its output columns, the unit-stride
  // form the CPU's register tiles need (transposed, every product of a row is N floats apart).
  const Value& b = cx.input(1);
  plaidml::Tensor b_operand = cx.tensor(1);
  if (trans_b && b.host) {
    b_operand = cx.constant(transpose(*b.host, {1, 0}));
    trans_b = false;
  }
  attrs.set("trans_a", cx.attr_int("transA", 0) != 0 ? 1 : 0);
  attrs.set("trans_b", trans_b ? 1 : 0);
  bool use_c = cx.has_input(2) && (is_float || beta != 0.0);
  if (!is_float && (alpha != 1.0 || (use_c && beta != 1.0))) {
    unsupported("Gemm on {} with alpha {} / beta {} (only 1 is supported for integers)",
                dtype_text(cx.dtype(0)), alpha, beta);
  }
  attrs.set("alpha", alpha).set("beta", beta);
  std::vector<plaidml::Tensor> operands = {cx.tensor(0), b_operand};
  if (use_c) {
    if (cx.rank(2) > 2) invalid("Gemm's C must have rank 2 or less");
    operands.push_back(cx.tensor(2));
  }
  cx.set_output(0, plaidml::op("gemm", operands, attrs), cx.dtype(0));
}

}  // namespace nn

std::vector<ConverterEntry> nn_converters() {
  using namespace nn;  // NOLINT: the converters of this group
  return {
      {"MatMul", {1, 9, 13}, matmul},
      {"Gemm", {7, 9, 11, 13}, gemm},
      {"Softmax", {1, 11, 13}, softmax},
      {"LogSoftmax", {1, 11, 13}, log_softmax},
      {"Hardmax", {1, 11, 13}, hardmax},
      {"Conv", {1, 11, 22}, conv},
      {"ConvTranspose", {1, 11, 22}, conv_transpose},
      {"MaxPool", {1, 8, 10, 11, 12, 22}, max_pool},
      {"AveragePool", {7, 10, 11, 19, 22}, average_pool},
      {"LpPool", {2, 11, 18, 22}, lp_pool},
      {"GlobalAveragePool", {1, 22}, global_average_pool},
      {"GlobalMaxPool", {1, 22}, global_max_pool},
      {"GlobalLpPool", {2, 22}, global_lp_pool},
      {"BatchNormalization", {7, 9, 14, 15}, batch_norm},
      {"InstanceNormalization", {6, 22}, instance_norm},
      {"LayerNormalization", {17}, layer_norm},
      {"GroupNormalization", {18, 21}, group_norm},
      {"RMSNormalization", {23}, rms_norm},
      {"LRN", {1, 13}, lrn},
      {"MeanVarianceNormalization", {9, 13}, mean_variance_norm},
      {"Einsum", {12, 28}, einsum},
      {"Resize", {10, 11, 13, 18, 19}, resize},
      {"Upsample", {7, 9, 10}, upsample},
  };
}

}  // namespace plaidml::onnx_import
