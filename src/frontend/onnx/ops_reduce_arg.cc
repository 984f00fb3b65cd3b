// ONNX operators: ArgMax, ArgMin, TopK (the reduce group's index-finding ops).
//
// Both follow numpy's order, as the onnx reference does: NaN counts as the greatest value for
// ArgMax and TopK(largest) and as the smallest for ArgMin (np.argmin returns the first NaN); in
// TopK(largest=0) NaNs come last. Ties go to the lower index (ArgMax/ArgMin: the higher one with
// select_last_index).
#include <numeric>

#include "ops_reduce_util.h"

namespace plaidml::onnx_import {
namespace {

using namespace reduce_util;  // NOLINT

// The first (or last) index along `axis` where x reaches its max (min), as int64. A NaN in the
// slice makes the extreme NaN and matches only the NaNs.
plaidml::Tensor arg_extreme(const plaidml::Tensor& x, plaidml_dtype dtype, int64_t axis,
                            bool is_max, bool last, bool keepdims) {
  plaidml::Tensor m = nan_extreme(is_max ? "max" : "min", x, dtype, {axis}, true);
  plaidml::Tensor j = plaidml::index(x, static_cast<int>(axis));  // i32
  // Where x does not match, a value that loses the min (max) over the axis.
  plaidml::Tensor miss = last ? x.constant(int64_t{-1}) : x.constant(int64_t{2147483647});
  plaidml::Tensor t = plaidml::select(plaidml::eq(x, m), j, miss);
  if (dtype_is_float(dtype)) t = plaidml::select(is_nan(x), j, t);
  plaidml::Tensor r = reduce(last ? "max" : "min", t, {axis}, keepdims);
  return plaidml::as_int(r, 64);
}

template <bool kIsMax>
void arg_op(NodeContext& cx) {
  if (cx.version() >= 12) {
    cx.check_attrs({"axis", "keepdims", "select_last_index"});
  } else {
    cx.check_attrs({"axis", "keepdims"});
  }
  cx.require_dtype(0, kNumeric);
  size_t rank = cx.rank(0);
  int64_t axis = static_cast<int64_t>(cx.normalize_axis(cx.attr_int("axis", 0), rank, "axis"));
  if (cx.size(0, static_cast<size_t>(axis)) == 0) {
    invalid("{} over an axis of size 0 has no result", cx.op_type());
  }
  bool keepdims = cx.attr_int("keepdims", 1) != 0;
  bool last = cx.attr_int("select_last_index", 0) != 0;
  cx.set_output(0, arg_extreme(cx.tensor(0), cx.dtype(0), axis, kIsMax, last, keepdims),
                PLAIDML_DTYPE_INT64);
}

// ---- TopK -----------------------------------------------------------------------------------
//
// No sort: for each element i along the axis, its position in the order is the number of
// elements j that come before it (better value, or an equal value at a lower index). Positions
// are a permutation of 0..N-1, so output p < k is the one element whose position is p, picked by
// a contraction with an equality condition. Costs N^2 comparisons per slice.

// Whether element j comes before element i in the order (the operands broadcast against each
// other: xj varies along axis + 1, xi along axis; the result has both).
plaidml::Tensor comes_before(const plaidml::Tensor& xj, const plaidml::Tensor& xi,
                             plaidml_dtype dtype, int64_t axis, bool largest) {
  plaidml::Tensor better = largest ? xj > xi : xj < xi;
  plaidml::Tensor tie = plaidml::eq(xj, xi);
  if (dtype_is_float(dtype)) {
    // NaN sorts above everything (first when largest, last otherwise); NaNs tie.
    plaidml::Tensor nj = is_nan(xj), ni = is_nan(xi);
    plaidml::Tensor nan_better =
        largest ? logical_and(nj, logical_not(ni)) : logical_and(logical_not(nj), ni);
    better = logical_or(better, nan_better);
    tie = logical_or(tie, logical_and(nj, ni));
  }
  int a = static_cast<int>(axis);
  plaidml::Tensor lower = plaidml::index(tie, a + 1) < plaidml::index(tie, a);
  return logical_or(better, logical_and(tie, lower));
}

// Index variables for every axis of a rank-`rank` access.
std::vector<plaidml::IndexExpr> index_vars(plaidml::Builder& b, size_t rank) {
  std::vector<plaidml::IndexExpr> v;
  for (size_t d = 0; d < rank; ++d) v.push_back(b.index("d" + std::to_string(d)));
  return v;
}

// O[.., p, ..] = the element of src whose position (pos) is p, for p < k.
plaidml::Tensor pick(NodeContext& cx, const plaidml::Tensor& src, const plaidml::Tensor& pos,
                     const plaidml::Tensor& iota, size_t axis, int64_t k) {
  plaidml::Builder& b = cx.builder();
  size_t rank = src.rank();
  std::vector<plaidml::IndexExpr> in = index_vars(b, rank), out = in, sizes;
  plaidml::IndexExpr i = b.index("i"), p = b.index("p");
  in[axis] = i;
  out[axis] = p;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(d == axis ? b.literal(k) : src.dim(d));
  plaidml::Contraction c = b.contraction(sizes);
  plaidml::OutputAccess(&c, out) +=
      plaidml::cond(plaidml::Access(pos, in) == plaidml::Access(iota, {p}),
                    plaidml::Access(src, in));
  return c;
}

void topk(NodeContext& cx) {
  if (cx.version() >= 11) {
    cx.check_attrs({"axis", "largest", "sorted"});
  } else if (cx.version() >= 10) {
    cx.check_attrs({"axis"});
  } else {
    cx.check_attrs({"axis", "k"});
  }
  cx.require_dtype(0, kNumeric);
  size_t rank = cx.rank(0);
  size_t axis = cx.normalize_axis(cx.attr_int("axis", -1), rank, "axis");
  int64_t k = 0;
  if (cx.version() >= 10) {
    std::vector<int64_t> ks = cx.required_ints(1, "K");
    if (ks.size() != 1) invalid("input 'K' must hold one value, it holds {}", ks.size());
    k = ks[0];
  } else {
    if (!cx.has_attr("k")) invalid("attribute 'k' is required");
    k = cx.attr_int("k", 0);
  }
  int64_t n = cx.size(0, axis);
  if (k < 0 || (n >= 0 && k > n)) {
    invalid("k = {} is out of range for an axis of size {}", k, n);
  }
  bool largest = cx.attr_int("largest", 1) != 0;
  plaidml_dtype dtype = cx.dtype(0);
  plaidml::Tensor x = cx.tensor(0);
  int64_t a = static_cast<int64_t>(axis);
  plaidml::Tensor xi = plaidml::op("unsqueeze", {x}, plaidml::Attrs().set("axes", {a + 1}));
  plaidml::Tensor xj = plaidml::op("unsqueeze", {x}, plaidml::Attrs().set("axes", {a}));
  plaidml::Tensor before = plaidml::as_int(comes_before(xj, xi, dtype, a, largest), 32);
  plaidml::Tensor pos = reduce("sum", before, {a + 1}, false);  // i32, x's shape
  std::vector<int64_t> seq(static_cast<size_t>(k));
  std::iota(seq.begin(), seq.end(), 0);
  plaidml::Tensor iota = cx.constant(HostTensor::from_ints(PLAIDML_DTYPE_INT32, {k}, seq));
  plaidml::Tensor idx = plaidml::as_int(plaidml::index(x, static_cast<int>(axis)), 64);
  bool empty = k == 0;  // an empty output (see is_half)
  for (size_t d = 0; d < rank; ++d) empty = empty || cx.size(0, d) == 0;
  if (empty && is_half(dtype)) {
    cx.set_output(0, to_half(pick(cx, plaidml::as_float(x, 32), pos, iota, axis, k), dtype), dtype);
  } else {
    cx.set_output(0, pick(cx, x, pos, iota, axis, k), dtype);
  }
  cx.set_output(1, pick(cx, idx, pos, iota, axis, k), PLAIDML_DTYPE_INT64);
}

}  // namespace

std::vector<ConverterEntry> reduce_util::arg_converters() {
  return {
      {"ArgMax", {1, 11, 12, 13}, arg_op<true>},
      {"ArgMin", {1, 11, 12, 13}, arg_op<false>},
      {"TopK", {1, 10, 11, 24}, topk},
  };
}

}  // namespace plaidml::onnx_import
