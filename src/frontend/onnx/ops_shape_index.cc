// ONNX operators of the shape group that index by tensor contents: Gather, GatherElements,
// GatherND, ScatterElements (and the older Scatter), ScatterND, OneHot.
//
// GatherElements/GatherND/Scatter* work on flat positions: the data is reshaped to rows, each
// index tuple becomes one row number (negative indices wrapped, coordinates from `index`), and
// Tile's gather/scatter move the rows (docs/tile.md 3.3).
#include <algorithm>
#include <cstring>

#include "ops_shape_util.h"

namespace plaidml::onnx_import::shape {
namespace {

const std::vector<plaidml_dtype> kIndexTypes = {PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64};

// A known index normalised into [0, d) (INVALID when out of range).
int64_t known_index(int64_t v, int64_t d) {
  if (v < -d || v >= d) invalid("index {} is out of range for size {}", v, d);
  return v < 0 ? v + d : v;
}

// Sizes as a scalar integer program value (a literal, or the dims' expression).
plaidml::Tensor size_value(NodeContext& cx, const SymInt& s) {
  return s.known() ? scalar_int(cx, PLAIDML_DTYPE_INT64, *s.value) : dim_value(cx, *s.expr);
}

// int64 coordinate along axis of every element of t.
plaidml::Tensor coord(const plaidml::Tensor& t, size_t axis) {
  return plaidml::as_int(plaidml::index(t, static_cast<int>(axis)), 64);
}

// --- Gather ---

void gather_op(NodeContext& cx) {
  cx.check_attrs({"axis"});
  cx.require_dtype(1, kIndexTypes);
  size_t r = cx.rank(0);
  if (r == 0) invalid("Gather of a scalar");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", 0), r, "axis");
  const HostTensor* hi = cx.host(1);
  // Gather(Shape(x), k): sizes stay sizes.
  if (hi != nullptr && hi->rank() <= 1 && cx.host(0) == nullptr && r == 1 &&
      cx.dtype(0) == PLAIDML_DTYPE_INT64 && cx.sizes(0)) {
    auto all = *cx.sizes(0);
    std::vector<SymInt> out;
    for (int64_t v : hi->to_ints()) {
      out.push_back(all[static_cast<size_t>(known_index(v, static_cast<int64_t>(all.size())))]);
    }
    return cx.set_sizes_output(0, out, hi->rank() == 0);
  }
  const HostTensor* h = foldable(cx, 0);
  if (h != nullptr && hi != nullptr) {
    std::vector<int64_t> idx = hi->to_ints();
    int64_t d = h->dims[axis];
    for (auto& v : idx) v = known_index(v, d);
    std::vector<int64_t> out_dims(h->dims.begin(), h->dims.begin() + static_cast<long>(axis));
    out_dims.insert(out_dims.end(), hi->dims.begin(), hi->dims.end());
    out_dims.insert(out_dims.end(), h->dims.begin() + static_cast<long>(axis) + 1, h->dims.end());
    if (at_most_elements(out_dims, kFoldLimit)) {
      std::vector<int64_t> st = strides_of(h->dims), ist = strides_of(hi->dims);
      size_t q = hi->rank();
      return cx.set_output(0, host_remap(*h, out_dims, [&](const std::vector<int64_t>& o) {
        int64_t s = 0, flat = 0;
        for (size_t a = 0; a < axis; ++a) s += o[a] * st[a];
        for (size_t t = 0; t < q; ++t) flat += o[axis + t] * ist[t];
        s += idx[static_cast<size_t>(flat)] * st[axis];
        for (size_t a = axis + 1; a < r; ++a) s += o[a + q - 1] * st[a];
        return s;
      }));
    }
  }
  cx.set_output(0, plaidml::op("gather", {cx.tensor(0), cx.tensor(1)},
                               plaidml::Attrs().set("axis", static_cast<int64_t>(axis))),
                cx.dtype(0));
}

// The flat position in data (dims) of each element of `indices` (same rank) where the
// coordinate along axis is the index's value (wrapped) and the others are the element's own.
plaidml::Tensor flat_positions(NodeContext& cx, const plaidml::Tensor& indices,
                               const std::vector<SymInt>& dims, size_t axis) {
  std::optional<plaidml::Tensor> flat;
  SymInt stride = known(1);
  for (size_t a = dims.size(); a-- > 0;) {
    plaidml::Tensor c = a == axis ? wrap_negative(plaidml::as_int(indices, 64), size_value(cx, dims[a]))
                                  : coord(indices, a);
    plaidml::Tensor term = (stride.known() && *stride.value == 1) ? c : c * size_value(cx, stride);
    flat = flat ? *flat + term : term;
    stride = sym_mul(cx, stride, dims[a]);
  }
  return *flat;
}

void gather_elements_op(NodeContext& cx) {
  cx.check_attrs({"axis"});
  cx.require_dtype(1, kIndexTypes);
  std::vector<SymInt> dims = input_dims(cx, 0);
  if (dims.empty()) invalid("GatherElements of a scalar");
  if (cx.rank(1) != dims.size()) invalid("indices and data have different ranks");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", 0), dims.size(), "axis");
  plaidml::Tensor flat_data =
      plaidml::reshape(cx.tensor(0), {expr_of(cx, sym_product(cx, dims, 0, dims.size()))});
  plaidml::Tensor pos = flat_positions(cx, cx.tensor(1), dims, axis);
  cx.set_output(0, plaidml::call("gather", {flat_data, pos}), cx.dtype(0));
}

// --- GatherND / ScatterND ---

// The row number, in data reshaped to [prod(dims[b:b+k]) * batch, ...], of each index tuple
// (the last axis of `indices`, of k entries), plus the batch offset of the first b axes.
plaidml::Tensor tuple_rows(NodeContext& cx, const plaidml::Tensor& indices,
                           const std::vector<SymInt>& idims, const std::vector<SymInt>& dims,
                           size_t b, int64_t k) {
  size_t q = idims.size();
  std::vector<SymInt> lead(idims.begin(), idims.end() - 1);
  std::optional<plaidml::Tensor> rows;
  SymInt stride = known(1);
  for (int64_t m = k; m-- > 0;) {
    plaidml::Tensor part = take_range(cx, indices, idims, q - 1, known(m), known(1));
    part = plaidml::as_int(plaidml::reshape(part, exprs_of(cx, lead)), 64);
    const SymInt& d = dims[b + static_cast<size_t>(m)];
    part = wrap_negative(part, size_value(cx, d));
    plaidml::Tensor term = (stride.known() && *stride.value == 1) ? part : part * size_value(cx, stride);
    rows = rows ? *rows + term : term;
    stride = sym_mul(cx, stride, d);
  }
  // stride is now the rows of one batch entry; batch coordinates come from the position.
  SymInt bstride = stride;
  for (size_t t = b; t-- > 0;) {
    *rows = *rows + coord(*rows, t) * size_value(cx, bstride);
    bstride = sym_mul(cx, bstride, dims[t]);
  }
  return *rows;
}

struct NdShape {
  std::vector<SymInt> dims, idims;
  size_t b = 0;
  int64_t k = 0;
};

NdShape nd_shape(NodeContext& cx, size_t b) {
  NdShape s;
  s.dims = input_dims(cx, 0);
  s.idims = input_dims(cx, 1);
  s.b = b;
  if (s.idims.empty()) invalid("indices must have rank 1 or more");
  if (!s.idims.back().known()) unsupported("the last dim of indices must be known at import");
  s.k = *s.idims.back().value;
  if (s.k < 1 || b + static_cast<size_t>(s.k) > s.dims.size()) {
    invalid("index tuples of {} entries for data of rank {} (batch_dims {})", s.k, s.dims.size(), b);
  }
  if (b >= s.idims.size()) invalid("batch_dims {} for indices of rank {}", b, s.idims.size());
  return s;
}

void gather_nd_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 12 ? std::vector<std::string>{"batch_dims"}
                                    : std::vector<std::string>{});
  cx.require_dtype(1, {PLAIDML_DTYPE_INT64});
  int64_t b = cx.attr_int("batch_dims", 0);
  if (b < 0) invalid("batch_dims is negative");
  NdShape s = nd_shape(cx, static_cast<size_t>(b));
  size_t tail = s.b + static_cast<size_t>(s.k);
  SymInt rows = sym_product(cx, s.dims, 0, tail);
  SymInt rest = sym_product(cx, s.dims, tail, s.dims.size());
  plaidml::Tensor v = plaidml::reshape(cx.tensor(0), {expr_of(cx, rows), expr_of(cx, rest)});
  plaidml::Tensor f = tuple_rows(cx, cx.tensor(1), s.idims, s.dims, s.b, s.k);
  plaidml::Tensor g = plaidml::call("gather", {v, f});
  std::vector<SymInt> out(s.idims.begin(), s.idims.end() - 1);
  out.insert(out.end(), s.dims.begin() + static_cast<long>(tail), s.dims.end());
  cx.set_output(0, plaidml::reshape(g, exprs_of(cx, out)), cx.dtype(0));
}

// data [P, R] with updates [J, R] scattered to rows f [J]: reduction none/add/mul/max/min.
plaidml::Tensor scatter_rows(NodeContext& cx, const plaidml::Tensor& data, const SymInt& p,
                             const SymInt& r, const plaidml::Tensor& f, const SymInt& j,
                             const plaidml::Tensor& upd, const std::string& reduction,
                             plaidml_dtype dtype) {
  if (reduction == "none" || reduction == "add") {
    plaidml::Tensor sum = plaidml::call("scatter", {upd, f, data});
    if (reduction == "add") return cast_to(data + sum, dtype);
    // Duplicate indices are undefined for "none" (ONNX); each updated row takes its update.
    plaidml::Tensor ones = cast_to(true_of_dims(cx, {expr_of(cx, j), expr_of(cx, r)}),
                                   PLAIDML_DTYPE_INT32);
    plaidml::Tensor hit = plaidml::call("scatter", {ones, f, data}) > 0;
    return plaidml::select(hit, sum, data);
  }
  // mul/max/min: every (row, update) pair; a pair that does not match contributes the
  // aggregation's identity (mul) or the row's own value (max/min), over the data as default.
  plaidml::Tensor rows3 = plaidml::reshape(
      coord(true_of_dims(cx, {expr_of(cx, p)}), 0), {expr_of(cx, p), cx.literal(1), cx.literal(1)});
  plaidml::Tensor f3 = plaidml::reshape(f, {cx.literal(1), expr_of(cx, j), cx.literal(1)});
  plaidml::Tensor u3 = plaidml::reshape(upd, {cx.literal(1), expr_of(cx, j), expr_of(cx, r)});
  plaidml::Tensor d3 = plaidml::reshape(data, {expr_of(cx, p), cx.literal(1), expr_of(cx, r)});
  plaidml::Tensor other = reduction == "mul" ? scalar_int(cx, dtype, 1) : d3;
  plaidml::Tensor t = plaidml::select(plaidml::eq(rows3, f3), u3, other);
  auto idx = index_vars(cx, 3, "s");
  plaidml::Contraction c = cx.builder().contraction({expr_of(cx, p), expr_of(cx, r)});
  plaidml::OutputAccess out(&c, {idx[0], idx[2]});
  plaidml::Access in(t, {idx[0], idx[1], idx[2]});
  if (reduction == "mul") {
    out *= in;
  } else if (reduction == "max") {
    out.max(in);
  } else {
    out.min(in);
  }
  c.set_default(data);
  return c;
}

std::string reduction_of(NodeContext& cx) {
  std::string red = cx.attr_string("reduction", "none");
  bool ok = red == "none" || (cx.version() >= 16 && (red == "add" || red == "mul")) ||
            (cx.version() >= 18 && (red == "max" || red == "min"));
  if (!ok) invalid("reduction '{}' is not one of version {}", red, cx.version());
  if (red != "none" && cx.dtype(0) == PLAIDML_DTYPE_BOOL) {
    unsupported("reduction '{}' on bool data is not supported", red);
  }
  return red;
}

void scatter_nd_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 16 ? std::vector<std::string>{"reduction"}
                                    : std::vector<std::string>{});
  cx.require_dtype(1, {PLAIDML_DTYPE_INT64});
  if (cx.dtype(2) != cx.dtype(0)) invalid("updates and data have different types");
  std::string red = reduction_of(cx);
  NdShape s = nd_shape(cx, 0);
  size_t tail = static_cast<size_t>(s.k);
  SymInt p = sym_product(cx, s.dims, 0, tail);
  SymInt r = sym_product(cx, s.dims, tail, s.dims.size());
  SymInt j = sym_product(cx, s.idims, 0, s.idims.size() - 1);
  plaidml::Tensor v = plaidml::reshape(cx.tensor(0), {expr_of(cx, p), expr_of(cx, r)});
  plaidml::Tensor f = plaidml::reshape(tuple_rows(cx, cx.tensor(1), s.idims, s.dims, 0, s.k),
                                       {expr_of(cx, j)});
  plaidml::Tensor u = plaidml::reshape(cx.tensor(2), {expr_of(cx, j), expr_of(cx, r)});
  plaidml::Tensor out = scatter_rows(cx, v, p, r, f, j, u, red, cx.dtype(0));
  cx.set_output(0, plaidml::reshape(out, exprs_of(cx, s.dims)), cx.dtype(0));
}

void scatter_elements_op(NodeContext& cx) {
  bool old = cx.op_type() == "Scatter";
  cx.check_attrs(!old && cx.version() >= 16 ? std::vector<std::string>{"axis", "reduction"}
                                            : std::vector<std::string>{"axis"});
  cx.require_dtype(1, kIndexTypes);
  if (cx.dtype(2) != cx.dtype(0)) invalid("updates and data have different types");
  std::string red = old ? "none" : reduction_of(cx);
  std::vector<SymInt> dims = input_dims(cx, 0);
  std::vector<SymInt> idims = input_dims(cx, 1);
  if (dims.empty() || idims.size() != dims.size()) invalid("indices and data ranks differ");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", 0), dims.size(), "axis");
  SymInt n = sym_product(cx, dims, 0, dims.size());
  SymInt j = sym_product(cx, idims, 0, idims.size());
  plaidml::Tensor v = plaidml::reshape(cx.tensor(0), {expr_of(cx, n), cx.literal(1)});
  plaidml::Tensor f = plaidml::reshape(flat_positions(cx, cx.tensor(1), dims, axis), {expr_of(cx, j)});
  plaidml::Tensor u = plaidml::reshape(cx.tensor(2), {expr_of(cx, j), cx.literal(1)});
  plaidml::Tensor out = scatter_rows(cx, v, n, known(1), f, j, u, red, cx.dtype(0));
  cx.set_output(0, plaidml::reshape(out, exprs_of(cx, dims)), cx.dtype(0));
}

// --- OneHot ---

void one_hot_op(NodeContext& cx) {
  cx.check_attrs({"axis"});
  std::vector<int64_t> depth_v = cx.required_ints(1, "depth");
  if (depth_v.size() != 1) invalid("depth has {} elements, not 1", depth_v.size());
  int64_t depth = depth_v[0];
  if (depth < 1) invalid("depth {} is less than 1", depth);
  if (cx.rank(2) != 1 || (cx.size(2, 0) >= 0 && cx.size(2, 0) != 2)) {
    invalid("values must hold 2 elements");
  }
  std::vector<SymInt> dims = input_dims(cx, 0);
  size_t axis = cx.normalize_axis(cx.attr_int("axis", -1), dims.size() + 1, "axis");
  plaidml::Tensor idx = plaidml::as_int(cx.tensor(0), 64);
  idx = wrap_negative(idx, scalar_int(cx, PLAIDML_DTYPE_INT64, depth));
  std::vector<SymInt> idx_dims = dims;
  idx_dims.insert(idx_dims.begin() + static_cast<long>(axis), known(1));
  idx = plaidml::reshape(idx, exprs_of(cx, idx_dims));
  std::vector<int64_t> iota(static_cast<size_t>(depth));
  for (int64_t k = 0; k < depth; ++k) iota[static_cast<size_t>(k)] = k;
  std::vector<int64_t> iota_dims(dims.size() + 1, 1);
  iota_dims[axis] = depth;
  plaidml::Tensor hot = cx.constant(HostTensor::from_ints(PLAIDML_DTYPE_INT64, iota_dims, iota));
  const HostTensor* hv = cx.host(2);
  auto value = [&](int64_t k) {
    if (hv != nullptr) return scalar_element(cx, *hv, k);
    return plaidml::op("gather", {cx.tensor(2), scalar_int(cx, PLAIDML_DTYPE_INT64, k)});
  };
  plaidml::Tensor off = value(0), on = value(1);
  cx.set_output(0, plaidml::select(plaidml::eq(idx, hot), on, off), cx.dtype(2));
}

}  // namespace

std::vector<ConverterEntry> index_converters() {
  return {
      {"Gather", {1, 11, 13}, gather_op},
      {"GatherElements", {11, 13}, gather_elements_op},
      {"GatherND", {11, 12, 13}, gather_nd_op},
      {"ScatterND", {11, 13, 16, 18}, scatter_nd_op},
      {"ScatterElements", {11, 13, 16, 18}, scatter_elements_op},
      {"Scatter", {9, 11}, scatter_elements_op},
      {"OneHot", {9, 11, 28}, one_hot_op},
  };
}

}  // namespace plaidml::onnx_import::shape
