// Normalisations: BatchNormalization (inference), InstanceNormalization, LayerNormalization,
// GroupNormalization, RMSNormalization, LRN, MeanVarianceNormalization. Elementwise formulas
// over op library reductions, in the order of onnx's reference (scale * (x - mean) /
// sqrt(var + eps) + bias).
#include <cmath>
#include <optional>

#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {
namespace {

plaidml::Tensor as_dtype(const plaidml::Tensor& t, plaidml_dtype from, plaidml_dtype to) {
  return from == to ? t : cast(t, to);
}

// Input i converted to dtype.
plaidml::Tensor input_as(NodeContext& cx, size_t i, plaidml_dtype dtype) {
  cx.require_dtype(i, float_types());
  return as_dtype(cx.tensor(i), cx.dtype(i), dtype);
}

// (x - mean) / sqrt(var + eps) over axes [from, rank) of x; also the mean and 1/std.
struct Normalized {
  plaidml::Tensor y, mean, inv_std;
};

Normalized normalize(const plaidml::Tensor& x, size_t from, size_t rank, double eps) {
  std::vector<int64_t> axes;
  for (size_t a = from; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  plaidml::Tensor mean = mean_keep(x, axes);
  plaidml::Tensor d = x - mean;
  plaidml::Tensor var = mean_keep(d * d, axes);
  plaidml::Tensor inv_std = plaidml::recip(plaidml::sqrt(var + eps));
  return {d * inv_std, mean, inv_std};
}

plaidml_dtype stash_dtype(NodeContext& cx) {
  return float_dtype_of_onnx(cx.attr_int("stash_type", 1), "stash_type");
}

}  // namespace

namespace {

// Inference BatchNormalization with every parameter known: y = x * scale + shift per channel,
// scale = gamma / sqrt(var + eps) and shift = beta - mean * scale computed once on the host (in
// double), as onnxruntime folds it; nullopt when a parameter is computed.
std::optional<std::pair<HostTensor, HostTensor>> folded_batch_norm(NodeContext& cx, double eps,
                                                                   plaidml_dtype dt) {
  const HostTensor* p[5] = {};
  for (size_t i = 1; i < 5; ++i) {
    p[i] = cx.input(i).host ? &*cx.input(i).host : nullptr;
    if (p[i] == nullptr || p[i]->rank() != 1) return std::nullopt;
  }
  std::vector<double> gamma = p[1]->to_doubles(), beta = p[2]->to_doubles(),
                      mean = p[3]->to_doubles(), var = p[4]->to_doubles();
  size_t c = gamma.size();
  if (beta.size() != c || mean.size() != c || var.size() != c) return std::nullopt;
  std::vector<double> scale(c), shift(c);
  for (size_t k = 0; k < c; ++k) {
    scale[k] = gamma[k] / std::sqrt(var[k] + eps);
    shift[k] = beta[k] - mean[k] * scale[k];
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(c)};
  return std::make_pair(HostTensor::from_doubles(dt, dims, scale),
                        HostTensor::from_doubles(dt, dims, shift));
}

}  // namespace

void batch_norm(NodeContext& cx) {
  cx.check_attrs({"epsilon", "momentum", "spatial", "training_mode"});
  cx.require_dtype(0, float_types());
  if (cx.attr_int("training_mode", 0) != 0) {
    unsupported("BatchNormalization with training_mode=1 (plaidml imports inference only)");
  }
  for (size_t o = 1; o < cx.output_count(); ++o) {
    if (cx.wants_output(o)) unsupported("BatchNormalization's training outputs (mean, var)");
  }
  size_t rank = cx.rank(0);
  if (rank < 2) invalid("the input must have rank 2 or more");
  bool spatial = cx.attr_int("spatial", 1) != 0;
  plaidml_dtype dt = cx.dtype(0);
  double eps = cx.attr_float("epsilon", 1e-5);
  for (size_t i = 1; i < 5; ++i) cx.require_dtype(i, float_types());
  // Channels last, a [C] parameter broadcasts along the last axis as it is.
  bool last = spatial && cx.is_channels_last(0);
  // spatial = 1: one value per channel, [C] -> [C, 1, ...]; spatial = 0 (version 7): one per
  // activation, shaped like X without N, which broadcasts as it is.
  auto shaped = [&](const plaidml::Tensor& p) {
    if (!spatial || last) return p;
    std::vector<plaidml::IndexExpr> dims = {p.dim(0)};
    for (size_t a = 2; a < rank; ++a) dims.push_back(cx.literal(1));
    return plaidml::reshape(p, dims);
  };
  plaidml::Tensor x = last ? cx.channels_last(0) : cx.tensor(0);
  auto param = [&](size_t i) {
    if (spatial && cx.rank(i) != 1) {
      invalid("input {} must have rank 1, but it has rank {}", i, cx.rank(i));
    }
    return as_dtype(shaped(cx.tensor(i)), cx.dtype(i), dt);
  };
  auto folded = spatial ? folded_batch_norm(cx, eps, dt) : std::nullopt;
  plaidml::Tensor y =
      folded ? x * shaped(cx.constant(folded->first)) + shaped(cx.constant(folded->second))
             : param(1) * (x - param(3)) / plaidml::sqrt(param(4) + eps) + param(2);
  if (last) return cx.set_output_channels_last(0, y, dt);
  cx.set_output(0, y, dt);
}

void instance_norm(NodeContext& cx) {
  cx.check_attrs({"epsilon"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank < 3) invalid("the input must have rank 3 or more");
  double eps = cx.attr_float("epsilon", 1e-5);
  plaidml::Tensor x = cx.tensor(0);
  std::vector<int64_t> axes;
  for (size_t a = 2; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  plaidml::Tensor mean = mean_keep(x, axes);
  plaidml::Tensor d = x - mean;
  plaidml::Tensor var = mean_keep(d * d, axes);
  plaidml::Tensor y = channel_param(cx, 1, rank) * d / plaidml::sqrt(var + eps) +
                      channel_param(cx, 2, rank);
  cx.set_output(0, y, cx.dtype(0));
}

void layer_norm(NodeContext& cx) {
  cx.check_attrs({"axis", "epsilon", "stash_type"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank == 0) invalid("the input must have rank 1 or more");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", -1), rank, "axis");
  plaidml_dtype dt = cx.dtype(0), u = stash_dtype(cx);
  Normalized n = normalize(input_as(cx, 0, u), axis, rank, cx.attr_float("epsilon", 1e-5));
  plaidml::Tensor y = as_dtype(n.y, u, dt) * input_as(cx, 1, dt);
  if (cx.has_input(2)) y = y + input_as(cx, 2, dt);
  cx.set_output(0, y, dt);
  cx.set_output(1, n.mean, u);
  cx.set_output(2, n.inv_std, u);
}

void rms_norm(NodeContext& cx) {
  cx.check_attrs({"axis", "epsilon", "stash_type"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank == 0) invalid("the input must have rank 1 or more");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", -1), rank, "axis");
  plaidml_dtype dt = cx.dtype(0), u = stash_dtype(cx);
  plaidml::Tensor x = input_as(cx, 0, u);
  std::vector<int64_t> axes;
  for (size_t a = axis; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  plaidml::Tensor ms = mean_keep(x * x, axes);
  plaidml::Tensor y = x * plaidml::recip(plaidml::sqrt(ms + cx.attr_float("epsilon", 1e-5)));
  cx.set_output(0, as_dtype(y, u, dt) * input_as(cx, 1, dt), dt);
}

// Statistics over groups of channels: X as [N, G, C/G * spatial...].
void group_norm(NodeContext& cx) {
  cx.check_attrs({"epsilon", "num_groups", "stash_type"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank < 2) invalid("the input must have rank 2 or more");
  if (!cx.has_attr("num_groups")) invalid("attribute 'num_groups' is required");
  int64_t groups = cx.attr_int("num_groups", 1);
  int64_t c = cx.size(0, 1);
  if (groups < 1 || (c >= 0 && c % groups != 0)) {
    invalid("num_groups {} does not divide the {} channels", groups, c);
  }
  if (c < 0) {  // else the reshape into groups would fail at bind with a message of its own
    cx.require(PLAIDML_ASSERT_MULTIPLE, cx.dim(0, 1), cx.literal(groups),
               fmt::format("num_groups {} does not divide the {{0}} channels", groups),
               {cx.dim(0, 1)});
  }
  plaidml_dtype dt = cx.dtype(0), u = cx.version() >= 21 ? stash_dtype(cx) : dt;
  if (cx.version() < 21 && groups != 1 && (c < 0 || groups != c)) {
    // Version 18 scales per group, which its own function body did not do consistently
    // (the reason for version 21); only the cases where every reading agrees are imported.
    unsupported("GroupNormalization-18 with num_groups {} other than 1 or the channel count",
                groups);
  }
  plaidml::Tensor x = input_as(cx, 0, u);
  plaidml::IndexExpr per_group = plaidml::IndexExpr(cx.dim(0, 1)) / cx.literal(groups);
  plaidml::Tensor xg = plaidml::reshape(
      x, {cx.dim(0, 0), cx.literal(groups), per_group * dims_product(cx, 0, 2, rank)});
  Normalized n = normalize(xg, 2, 3, cx.attr_float("epsilon", 1e-5));
  plaidml::Tensor y = as_dtype(plaidml::reshape(n.y, dims_of(cx, 0)), u, dt);
  auto param = [&](size_t i) {
    if (cx.rank(i) != 1) invalid("input {} must have rank 1", i);
    return as_dtype(channel_param(cx, i, rank), cx.dtype(i), dt);
  };
  cx.set_output(0, y * param(1) + param(2), dt);
}

// y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta.
void lrn(NodeContext& cx) {
  cx.check_attrs({"alpha", "beta", "bias", "size"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank < 2) invalid("the input must have rank 2 or more");
  if (!cx.has_attr("size")) invalid("attribute 'size' is required");
  int64_t size = cx.attr_int("size", 1);
  if (size < 1) invalid("size must be 1 or more, got {}", size);
  double alpha = cx.attr_float("alpha", 1e-4), beta = cx.attr_float("beta", 0.75),
         bias = cx.attr_float("bias", 1.0);
  plaidml::Builder& b = cx.builder();
  plaidml::Tensor x = cx.tensor(0);
  auto idx = indices(b, "a", rank);
  plaidml::IndexExpr k = b.index("k");
  std::vector<plaidml::IndexExpr> in_idx = idx;
  in_idx[1] = idx[1] + k - (size - 1) / 2;
  plaidml::Contraction sum = b.contraction(dims_of(cx, 0));
  sum.where(k < size);
  plaidml::OutputAccess(&sum, idx) += plaidml::Access(x * x, in_idx);
  plaidml::Tensor s = sum;
  plaidml::Tensor base = s * (alpha / static_cast<double>(size)) + bias;
  cx.set_output(0, x / plaidml::pow(base, base.constant(beta)), cx.dtype(0));
}

// onnx's function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9).
void mean_variance_norm(NodeContext& cx) {
  cx.check_attrs({"axes"});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  std::vector<int64_t> axes;
  for (int64_t a : cx.attr_ints("axes", {0, 2, 3})) {
    axes.push_back(static_cast<int64_t>(cx.normalize_axis(a, rank, "axes")));
  }
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor mean = mean_keep(x, axes);
  plaidml::Tensor var = mean_keep(x * x, axes) - mean * mean;
  cx.set_output(0, (x - mean) / (plaidml::sqrt(var) + 1e-9), cx.dtype(0));
}

}  // namespace plaidml::onnx_import::nn
