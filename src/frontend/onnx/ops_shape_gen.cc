// ONNX operators of the shape group that make tensors from sizes or positions: ConstantOfShape,
// Range, EyeLike, Trilu, DepthToSpace, SpaceToDepth, and NonZero (folded only) and Unique
// (refused: their output sizes depend on the data).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops_shape_util.h"

namespace plaidml::onnx_import::shape {
namespace {

// The contraction O[i...] = V[] broadcasting a scalar to dims.
plaidml::Tensor broadcast_scalar(NodeContext& cx, const plaidml::Tensor& v,
                                 const std::vector<plaidml::IndexExpr>& dims) {
  if (dims.empty()) return v;
  plaidml::Contraction c = cx.builder().contraction(dims);
  plaidml::OutputAccess(&c, index_vars(cx, dims.size())) =
      plaidml::Combination(plaidml::Access(v, {}));
  return c;
}

int64_t known_attr_int(NodeContext& cx, const char* name) {
  if (!cx.has_attr(name)) invalid("attribute '{}' is required", name);
  return cx.attr_int(name, 0);
}

void constant_of_shape_op(NodeContext& cx) {
  cx.check_attrs({"value"});
  HostTensor value = cx.attr_tensor("value").value_or(
      HostTensor::from_doubles(PLAIDML_DTYPE_FLOAT32, {1}, {0.0}));
  if (value.elements() != 1) invalid("'value' has {} elements, not 1", value.elements());
  auto shape = cx.sizes(0);
  if (!shape) {
    unsupported("input 'input' (the shape) must be known when the model is imported (a constant, "
                "or computed from shapes and constants)");
  }
  for (const auto& s : *shape) {
    if (s.known() && *s.value < 0) invalid("the shape has a negative size {}", *s.value);
  }
  // Known up to 16M elements, the result is a weight as an initializer would be (exporters
  // make weights so; onnxruntime folds them when a session is created): folded here, it is
  // computed once, and converters that move weights on the host (Conv, layout.h) see it.
  constexpr int64_t kWeightFoldLimit = int64_t{1} << 24;
  if (all_known(*shape)) {
    std::vector<int64_t> dims = known_values(*shape);
    if (at_most_elements(dims, kWeightFoldLimit)) {
      HostTensor out = HostTensor::uninitialized(value.dtype, dims);
      size_t bytes = dtype_bytes(value.dtype);
      // One element, then the filled prefix doubled: a 100 MB weight in about 25 copies.
      auto* dst = static_cast<char*>(out.mutable_data());
      size_t total = out.byte_size(), filled = std::min(bytes, total);
      if (filled > 0) std::memcpy(dst, value.data, filled);
      while (filled < total) {
        size_t chunk = std::min(filled, total - filled);
        std::memcpy(dst + filled, dst, chunk);
        filled += chunk;
      }
      return cx.set_output(0, std::move(out));
    }
  }
  cx.set_output(0, broadcast_scalar(cx, scalar_element(cx, value, 0), exprs_of(cx, *shape)),
                value.dtype);
}

// --- Range ---

// Element count of an integer range (INVALID for delta 0).
int64_t int_range_count(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) invalid("delta is 0");
  int64_t diff = limit - start;
  if (delta > 0) return diff > 0 ? (diff + delta - 1) / delta : 0;
  return diff < 0 ? (diff + delta + 1) / delta : 0;
}

// A range whose start or limit is symbolic (e.g. Range(0, Shape(x)[1], 1)): integers only.
void symbolic_range(NodeContext& cx, const SymInt& start, const SymInt& limit, int64_t delta) {
  if (delta == 0) invalid("delta is 0");
  plaidml::IndexExpr s = expr_of(cx, start), l = expr_of(cx, limit);
  plaidml::IndexExpr n = delta > 0 ? plaidml::floordiv(l - s + (delta - 1), cx.literal(delta))
                                   : plaidml::floordiv(s - l + (-delta - 1), cx.literal(-delta));
  n = plaidml::max(cx.literal(0), n);
  plaidml::Tensor pos = plaidml::as_int(
      plaidml::index(broadcast_scalar(cx, scalar_int(cx, PLAIDML_DTYPE_INT64, 0), {n}), 0), 64);
  plaidml::Tensor first = start.known() ? scalar_int(cx, PLAIDML_DTYPE_INT64, *start.value)
                                        : dim_value(cx, *start.expr);
  cx.set_output(0, cast_to(first + pos * delta, cx.dtype(0)), cx.dtype(0));
}

void range_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 27 ? std::vector<std::string>{"stash_type"}
                                    : std::vector<std::string>{});
  plaidml_dtype d = cx.dtype(0);
  if (cx.dtype(1) != d || cx.dtype(2) != d) invalid("start, limit and delta have different types");
  int64_t stash = cx.attr_int("stash_type", 1);
  if (stash != 1 && stash != 11) unsupported("stash_type {} is not supported", stash);
  const HostTensor *hs = cx.host(0), *hl = cx.host(1), *hd = cx.host(2);
  for (size_t i = 0; i < 3; ++i) {
    if (cx.host(i) && cx.host(i)->elements() != 1) invalid("input {} is not a scalar", i);
  }
  if (!(hs && hl && hd)) {
    auto s = cx.sizes(0), l = cx.sizes(1);
    if (!dtype_is_float(d) && hd && s && l && s->size() == 1 && l->size() == 1) {
      return symbolic_range(cx, (*s)[0], (*l)[0], hd->as_int(0));
    }
    unsupported("Range needs start, limit and delta known when the model is imported (its size "
                "depends on them)");
  }
  int64_t n;
  if (dtype_is_float(d)) {
    double start = hs->as_double(0), delta = hd->as_double(0);
    if (delta == 0) invalid("delta is 0");
    double count = std::ceil((hl->as_double(0) - start) / delta);
    if (!(count < 1e12)) unsupported("Range of {} elements", count);
    n = std::max<int64_t>(0, static_cast<int64_t>(count));
    if (n > 16 * kFoldLimit) unsupported("Range of {} elements is too large to compute at import", n);
    std::vector<double> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = start + static_cast<double>(i) * delta;
    return cx.set_output(0, HostTensor::from_doubles(d, {n}, values));
  }
  int64_t start = hs->as_int(0), delta = hd->as_int(0);
  n = int_range_count(start, hl->as_int(0), delta);
  if (n > 16 * kFoldLimit) unsupported("Range of {} elements is too large to compute at import", n);
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = start + i * delta;
  cx.set_output(0, HostTensor::from_ints(d, {n}, values));
}

// --- EyeLike, Trilu ---

void eye_like_op(NodeContext& cx) {
  cx.check_attrs({"dtype", "k"});
  if (cx.rank(0) != 2) invalid("EyeLike needs a 2-D input, not rank {}", cx.rank(0));
  plaidml_dtype d = cx.has_attr("dtype") ? dtype_of_attr(cx.attr_int("dtype", 0), "dtype")
                                         : cx.dtype(0);
  int64_t k = cx.attr_int("k", 0);
  int64_t rows = cx.size(0, 0), cols = cx.size(0, 1);
  if (rows >= 0 && cols >= 0 && rows * cols <= kFoldLimit) {
    std::vector<int64_t> v(static_cast<size_t>(rows * cols), 0);
    for (int64_t i = 0; i < rows; ++i) {
      if (i + k >= 0 && i + k < cols) v[static_cast<size_t>(i * cols + i + k)] = 1;
    }
    return cx.set_output(0, HostTensor::from_ints(d, {rows, cols}, v));
  }
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor diff = plaidml::index(x, 1) - plaidml::index(x, 0);
  plaidml::Tensor on = plaidml::eq(plaidml::as_int(diff, 64), scalar_int(cx, PLAIDML_DTYPE_INT64, k));
  cx.set_output(0, cast_to(on, d), d);
}

void trilu_op(NodeContext& cx) {
  cx.check_attrs({"upper"});
  size_t r = cx.rank(0);
  if (r < 2) invalid("Trilu needs rank 2 or more, not {}", r);
  bool upper = cx.attr_int("upper", 1) != 0;
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor k = scalar_int(cx, PLAIDML_DTYPE_INT64, 0);
  if (cx.has_input(1)) {
    if (auto kv = cx.known_ints(1)) {
      if (kv->size() != 1) invalid("k has {} elements, not 1", kv->size());
      k = scalar_int(cx, PLAIDML_DTYPE_INT64, (*kv)[0]);
    } else {
      k = plaidml::reshape(cx.tensor(1), {});
    }
  }
  // j - i (column minus row) against k.
  plaidml::Tensor diff = plaidml::as_int(plaidml::index(x, static_cast<int>(r - 1)), 64) -
                         plaidml::as_int(plaidml::index(x, static_cast<int>(r - 2)), 64);
  plaidml::Tensor keep = upper ? diff >= k : diff <= k;
  cx.set_output(0, plaidml::select(keep, x, scalar_int(cx, cx.dtype(0), 0)), cx.dtype(0));
}

// --- DepthToSpace, SpaceToDepth ---

// reshape(x, mid) -> transpose(perm) -> reshape(out).
void shuffle(NodeContext& cx, const std::vector<SymInt>& mid, const std::vector<int64_t>& perm,
             const std::vector<SymInt>& out) {
  plaidml::Tensor t = plaidml::reshape(cx.tensor(0), exprs_of(cx, mid));
  t = plaidml::op("transpose", {t}, plaidml::Attrs().set("perm", perm));
  cx.set_output(0, plaidml::reshape(t, exprs_of(cx, out)), cx.dtype(0));
}

std::string block_mode(NodeContext& cx, bool has_mode) {
  cx.check_attrs(has_mode ? std::vector<std::string>{"blocksize", "mode"}
                          : std::vector<std::string>{"blocksize"});
  std::string mode = cx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") invalid("mode '{}' is not DCR or CRD", mode);
  if (cx.rank(0) != 4) unsupported("only 4-D inputs are supported, not rank {}", cx.rank(0));
  return mode;
}

void depth_to_space_op(NodeContext& cx) {
  std::string mode = block_mode(cx, cx.version() >= 11);
  int64_t b = known_attr_int(cx, "blocksize");
  if (b < 1) invalid("blocksize {} is less than 1", b);
  auto d = input_dims(cx, 0);
  if (d[1].known() && *d[1].value % (b * b) != 0) invalid("channels {} are not a multiple of {}", *d[1].value, b * b);
  SymInt c = sym_div(cx, d[1], known(b * b));
  std::vector<SymInt> out = {d[0], c, sym_mul(cx, d[2], known(b)), sym_mul(cx, d[3], known(b))};
  if (mode == "DCR") {
    shuffle(cx, {d[0], known(b), known(b), c, d[2], d[3]}, {0, 3, 4, 1, 5, 2}, out);
  } else {
    shuffle(cx, {d[0], c, known(b), known(b), d[2], d[3]}, {0, 1, 4, 2, 5, 3}, out);
  }
}

void space_to_depth_op(NodeContext& cx) {
  std::string mode = block_mode(cx, cx.version() >= 28);
  int64_t b = known_attr_int(cx, "blocksize");
  if (b < 1) invalid("blocksize {} is less than 1", b);
  auto d = input_dims(cx, 0);
  for (size_t a : {2, 3}) {
    if (d[a].known() && *d[a].value % b != 0) invalid("size {} is not a multiple of {}", *d[a].value, b);
  }
  SymInt h = sym_div(cx, d[2], known(b)), w = sym_div(cx, d[3], known(b));
  std::vector<SymInt> mid = {d[0], d[1], h, known(b), w, known(b)};
  std::vector<SymInt> out = {d[0], sym_mul(cx, d[1], known(b * b)), h, w};
  shuffle(cx, mid, mode == "DCR" ? std::vector<int64_t>{0, 3, 5, 1, 2, 4}
                                 : std::vector<int64_t>{0, 1, 3, 5, 2, 4}, out);
}

// --- NonZero, Unique ---

void non_zero_op(NodeContext& cx) {
  cx.check_attrs({});
  const HostTensor* h = foldable(cx, 0);
  if (h == nullptr) {
    unsupported("NonZero's output size depends on the data; it is supported only on contents "
                "known when the model is imported");
  }
  if (h->rank() == 0) unsupported("NonZero of a scalar is not supported");
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < h->elements(); ++i) {
    if (h->as_double(i) != 0 || std::isnan(h->as_double(i))) hits.push_back(i);
  }
  size_t r = h->rank();
  int64_t n = static_cast<int64_t>(hits.size());
  std::vector<int64_t> st = strides_of(h->dims), out(r * hits.size());
  for (size_t j = 0; j < hits.size(); ++j) {
    for (size_t a = 0; a < r; ++a) out[a * hits.size() + j] = (hits[j] / st[a]) % h->dims[a];
  }
  cx.set_output(0, HostTensor::from_ints(PLAIDML_DTYPE_INT64, {static_cast<int64_t>(r), n}, out));
}

void unique_op(NodeContext&) {
  unsupported("Unique's output sizes depend on the data, which plaidml programs cannot express");
}

}  // namespace

std::vector<ConverterEntry> gen_converters() {
  return {
      {"ConstantOfShape", {9, 20, 21, 23, 24, 25}, constant_of_shape_op},
      {"Range", {11, 27}, range_op},
      {"EyeLike", {9, 22}, eye_like_op},
      {"Trilu", {14}, trilu_op},
      {"DepthToSpace", {1, 11, 13, 28}, depth_to_space_op},
      {"SpaceToDepth", {1, 13, 28}, space_to_depth_op},
      {"NonZero", {9, 13}, non_zero_op},
      {"Unique", {11, 28}, unique_op},
  };
}

}  // namespace plaidml::onnx_import::shape
