// ONNX operators of the shape group that cut, join and grow tensors: Concat, Split, Slice,
// Expand, Tile, Pad. Each folds on known contents (and on sizes, for the 1-D integer vectors of
// shape subgraphs) and otherwise uses the op library or a contraction.
#include <algorithm>
#include <cstring>
#include <limits>

#include "layout.h"
#include "ops_shape_util.h"

namespace plaidml::onnx_import::shape {
namespace {

// True when input i is a 1-D int64 vector whose contents are known as sizes (some symbolic).
bool is_sizes_vector(NodeContext& cx, size_t i) {
  return cx.dtype(i) == PLAIDML_DTYPE_INT64 && cx.rank(i) == 1 && cx.sizes(i).has_value();
}

// --- Concat ---

HostTensor host_concat(const std::vector<const HostTensor*>& in, size_t axis) {
  std::vector<int64_t> dims = in[0]->dims;
  dims[axis] = 0;
  for (const auto* h : in) dims[axis] += h->dims[axis];
  HostTensor out = HostTensor::zeros(in[0]->dtype, dims);
  size_t eb = dtype_bytes(out.dtype);
  int64_t outer = 1;
  for (size_t k = 0; k < axis; ++k) outer *= dims[k];
  auto* dst = static_cast<char*>(out.mutable_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto* h : in) {
      int64_t block = h->elements() / std::max<int64_t>(outer, 1);
      size_t bytes = static_cast<size_t>(block) * eb;
      if (bytes == 0) continue;
      std::memcpy(dst, static_cast<const char*>(h->data) + o * static_cast<int64_t>(bytes), bytes);
      dst += bytes;
    }
  }
  return out;
}

void concat_op(NodeContext& cx) {
  cx.check_attrs({"axis"});
  if (!cx.has_attr("axis")) invalid("attribute 'axis' is required");
  size_t n = cx.input_count();
  if (n == 0) invalid("Concat has no inputs");
  size_t r = cx.rank(0);
  for (size_t i = 0; i < n; ++i) {
    if (cx.dtype(i) != cx.dtype(0)) invalid("inputs have different types");
    if (cx.rank(i) != r) invalid("inputs have different ranks");
  }
  if (r == 0) invalid("Concat of scalars");
  size_t axis = cx.normalize_axis(cx.attr_int("axis", 0), r, "axis");
  // Shape vectors: concatenated as sizes (known ones fold to a constant).
  bool sizes = r == 1;
  bool symbolic = false;
  for (size_t i = 0; i < n && sizes; ++i) {
    sizes = is_sizes_vector(cx, i);
    symbolic = symbolic || cx.host(i) == nullptr;
  }
  if (sizes && symbolic) {
    std::vector<SymInt> out;
    for (size_t i = 0; i < n; ++i) {
      auto part = *cx.sizes(i);
      out.insert(out.end(), part.begin(), part.end());
    }
    return cx.set_sizes_output(0, out);
  }
  std::vector<const HostTensor*> hosts;
  for (size_t i = 0; i < n; ++i) hosts.push_back(foldable(cx, i));
  if (std::all_of(hosts.begin(), hosts.end(), [](const HostTensor* h) { return h != nullptr; })) {
    for (const auto* h : hosts) {
      for (size_t k = 0; k < r; ++k) {
        if (k != axis && h->dims[k] != hosts[0]->dims[k]) invalid("inputs' sizes differ on axis {}", k);
      }
    }
    return cx.set_output(0, host_concat(hosts, axis));
  }
  // Channels-last inputs (layout.h): joined in that order, on the axis that holds `axis`.
  bool last = false;
  for (size_t i = 0; i < n; ++i) last = last || (r >= kMinChannelsRank && cx.is_channels_last(i));
  if (last) {
    std::vector<plaidml::Tensor> ts;
    for (size_t i = 0; i < n; ++i) ts.push_back(cx.channels_last(i));
    auto on = static_cast<int64_t>(stored_axis(axis, r));
    return cx.set_output_channels_last(
        0, plaidml::op("concatenate", ts, plaidml::Attrs().set("axis", on)), cx.dtype(0));
  }
  std::vector<plaidml::Tensor> ts;
  for (size_t i = 0; i < n; ++i) ts.push_back(cx.tensor(i));
  cx.set_output(0, plaidml::op("concatenate", ts,
                               plaidml::Attrs().set("axis", static_cast<int64_t>(axis))),
                cx.dtype(0));
}

// --- Split ---

// The pieces' sizes: `split` (attribute before 13, input from 13), or num_outputs (18) equal
// pieces with a smaller last one, or (before 18) equal pieces.
std::vector<SymInt> split_sizes(NodeContext& cx, const SymInt& dim) {
  std::optional<std::vector<int64_t>> split;
  if (cx.version() < 13) {
    if (cx.has_attr("split")) split = cx.attr_ints("split");
  } else if (cx.has_input(1)) {
    split = cx.required_ints(1, "split");
  }
  size_t n = cx.output_count();
  std::vector<SymInt> out;
  if (split) {
    if (cx.has_attr("num_outputs")) invalid("both 'split' and num_outputs are given");
    if (split->size() != n) invalid("'split' has {} entries for {} outputs", split->size(), n);
    int64_t total = 0;
    for (int64_t s : *split) {
      if (s < 0) invalid("'split' has a negative entry");
      total += s;
      out.push_back(known(s));
    }
    if (dim.known() && total != *dim.value) invalid("'split' sums to {}, not {}", total, *dim.value);
    return out;
  }
  if (cx.version() >= 18) {
    if (!cx.has_attr("num_outputs")) invalid("Split needs 'split' or num_outputs");
    int64_t num = cx.attr_int("num_outputs", 0);
    if (num < 1 || static_cast<size_t>(num) != n) invalid("num_outputs {} with {} outputs", num, n);
    SymInt piece = sym_div(cx, sym_add(cx, dim, known(num - 1)), known(num));
    for (size_t k = 0; k + 1 < n; ++k) out.push_back(piece);
    out.push_back(sym_sub(cx, dim, sym_mul(cx, piece, known(num - 1))));
    if (out.back().known() && *out.back().value < 0) {
      unsupported("num_outputs {} leaves the last piece empty of {} elements", num, *dim.value);
    }
    return out;
  }
  if (dim.known() && *dim.value % static_cast<int64_t>(n) != 0) {
    invalid("size {} does not split into {} equal parts", *dim.value, n);
  }
  SymInt piece = sym_div(cx, dim, known(static_cast<int64_t>(n)));
  return std::vector<SymInt>(n, piece);
}

void split_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 18   ? std::vector<std::string>{"axis", "num_outputs"}
                 : cx.version() < 13 ? std::vector<std::string>{"axis", "split"}
                                     : std::vector<std::string>{"axis"});
  std::vector<SymInt> dims = input_dims(cx, 0);
  size_t axis = cx.normalize_axis(cx.attr_int("axis", 0), dims.size(), "axis");
  std::vector<SymInt> pieces = split_sizes(cx, dims[axis]);
  SymInt offset = known(0);
  const HostTensor* h = foldable(cx, 0);
  bool sizes = cx.host(0) == nullptr && is_sizes_vector(cx, 0);
  for (size_t k = 0; k < pieces.size(); offset = sym_add(cx, offset, pieces[k]), ++k) {
    if (sizes && offset.known() && pieces[k].known()) {
      auto all = *cx.sizes(0);
      std::vector<SymInt> part(all.begin() + *offset.value,
                               all.begin() + *offset.value + *pieces[k].value);
      cx.set_sizes_output(k, part);
    } else if (h != nullptr) {
      std::vector<int64_t> out_dims = h->dims;
      out_dims[axis] = *pieces[k].value;
      std::vector<int64_t> st = strides_of(h->dims);
      int64_t off = *offset.value;
      cx.set_output(k, host_remap(*h, out_dims, [&](const std::vector<int64_t>& idx) {
        int64_t s = 0;
        for (size_t a = 0; a < idx.size(); ++a) s += (idx[a] + (a == axis ? off : 0)) * st[a];
        return s;
      }));
    } else {
      cx.set_output(k, take_range(cx, cx.tensor(0), dims, axis, offset, pieces[k]), cx.dtype(0));
    }
  }
}

// --- Slice ---

struct AxisSlice {
  int64_t start, size, step;
};

// ONNX Slice along a dim of size d (the op library's slice does the same on symbolic sizes).
AxisSlice slice_axis(int64_t d, int64_t start, int64_t end, int64_t step) {
  constexpr int64_t kBig = int64_t{1} << 40;
  start = std::clamp(start, -kBig, kBig);
  end = std::clamp(end, -kBig, kBig);
  if (start < 0) start += d;
  if (end < 0) end += d;
  int64_t span;
  if (step > 0) {
    start = std::clamp(start, int64_t{0}, d);
    end = std::clamp(end, int64_t{0}, d);
    span = end - start;
  } else {
    start = std::clamp(start, int64_t{0}, d - 1);
    end = std::clamp(end, int64_t{-1}, d - 1);
    span = start - end;
  }
  int64_t m = step > 0 ? step : -step;
  return {start, std::max<int64_t>(0, (span + m - 1) / m), step};
}

// One bound of a slice along a dim of size d, where the bound or d is symbolic: a negative
// bound counts from the end, and the result is clamped to [0, d] (step 1 only).
SymInt slice_bound(NodeContext& cx, const SymInt& bound, const SymInt& d) {
  if (bound.known() && d.known()) {
    int64_t b = std::clamp<int64_t>(*bound.value, -(int64_t{1} << 40), int64_t{1} << 40);
    return known(std::clamp<int64_t>(b < 0 ? b + *d.value : b, 0, *d.value));
  }
  if (bound.is_nonneg()) return symbolic(plaidml::min(expr_of(cx, bound), expr_of(cx, d)), true);
  if (bound.known() && *bound.value > -(int64_t{1} << 40)) {  // d + b, at least 0
    return symbolic(plaidml::max(expr_of(cx, d) + *bound.value, cx.literal(0)), true);
  }
  unsupported("a slice bound that may be negative and is not known at import");
}

// Slice where starts or ends are sizes not known at import (x[:, :seq], seq = Shape(ids)[1]):
// a range per axis, each bound clamped as ONNX does, with symbolic sizes.
void symbolic_slice(NodeContext& cx, const std::vector<SymInt>& starts,
                    const std::vector<SymInt>& ends, const std::vector<int64_t>& axes,
                    const std::vector<int64_t>& steps) {
  std::vector<SymInt> dims = input_dims(cx, 0);
  plaidml::Tensor x = cx.tensor(0);
  for (size_t j = 0; j < axes.size(); ++j) {
    if (steps[j] != 1) unsupported("a slice with step {} and bounds not known at import", steps[j]);
    size_t a = static_cast<size_t>(axes[j]);
    SymInt begin = slice_bound(cx, starts[j], dims[a]);
    SymInt end = slice_bound(cx, ends[j], dims[a]);
    SymInt size = begin.known() && end.known()
                      ? known(std::max<int64_t>(0, *end.value - *begin.value))
                      : symbolic(plaidml::max(expr_of(cx, end) - expr_of(cx, begin),
                                              cx.literal(0)), true);
    x = take_range(cx, x, dims, a, begin, size);
    dims[a] = size;
  }
  cx.set_output(0, x, cx.dtype(0));
}

// Slice's starts/ends input i: known integers, or sizes (some symbolic) in *symbolic.
std::vector<int64_t> slice_input(NodeContext& cx, size_t i, const char* what,
                                 std::optional<std::vector<SymInt>>* symbolic) {
  if (auto ints = cx.known_ints(i)) return *ints;
  auto sizes = cx.sizes(i);
  if (!sizes) return cx.required_ints(i, what);  // fails, naming the input
  *symbolic = sizes;
  return std::vector<int64_t>(sizes->size(), 0);
}

std::vector<SymInt> as_sizes(const std::vector<int64_t>& values,
                             const std::optional<std::vector<SymInt>>& symbolic) {
  if (symbolic) return *symbolic;
  std::vector<SymInt> out;
  for (int64_t v : values) out.push_back(known(v));
  return out;
}

void slice_op(NodeContext& cx) {
  std::vector<int64_t> starts, ends, axes, steps;
  std::optional<std::vector<SymInt>> sym_starts, sym_ends;
  if (cx.version() < 10) {
    cx.check_attrs({"starts", "ends", "axes"});
    starts = cx.attr_ints("starts");
    ends = cx.attr_ints("ends");
    axes = cx.attr_ints("axes");
  } else {
    cx.check_attrs({});
    starts = slice_input(cx, 1, "starts", &sym_starts);
    ends = slice_input(cx, 2, "ends", &sym_ends);
    if (cx.has_input(3)) axes = cx.required_ints(3, "axes");
    if (cx.has_input(4)) steps = cx.required_ints(4, "steps");
  }
  size_t r = cx.rank(0);
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    invalid("starts, ends, axes and steps have different lengths");
  }
  std::vector<bool> seen(r, false);
  for (auto& a : axes) {
    a = static_cast<int64_t>(cx.normalize_axis(a, r, "axis"));
    if (seen[static_cast<size_t>(a)]) invalid("axis {} is named twice", a);
    seen[static_cast<size_t>(a)] = true;
  }
  for (int64_t s : steps) {
    if (s == 0) invalid("a step is 0");
  }
  if (sym_starts || sym_ends) {
    return symbolic_slice(cx, as_sizes(starts, sym_starts), as_sizes(ends, sym_ends), axes,
                          steps);
  }
  const HostTensor* h = foldable(cx, 0);
  bool sizes = cx.host(0) == nullptr && is_sizes_vector(cx, 0);
  if (h != nullptr || sizes) {
    std::vector<int64_t> dims = h ? h->dims : std::vector<int64_t>{static_cast<int64_t>(cx.sizes(0)->size())};
    std::vector<AxisSlice> per(r);
    for (size_t k = 0; k < r; ++k) per[k] = {0, dims[k], 1};
    for (size_t j = 0; j < axes.size(); ++j) {
      size_t a = static_cast<size_t>(axes[j]);
      per[a] = slice_axis(dims[a], starts[j], ends[j], steps[j]);
    }
    if (sizes) {
      auto all = *cx.sizes(0);
      std::vector<SymInt> out;
      for (int64_t i = 0; i < per[0].size; ++i) {
        out.push_back(all[static_cast<size_t>(per[0].start + i * per[0].step)]);
      }
      return cx.set_sizes_output(0, out);
    }
    std::vector<int64_t> out_dims, st = strides_of(dims);
    for (const auto& p : per) out_dims.push_back(p.size);
    return cx.set_output(0, host_remap(*h, out_dims, [&](const std::vector<int64_t>& idx) {
      int64_t s = 0;
      for (size_t a = 0; a < idx.size(); ++a) s += (per[a].start + idx[a] * per[a].step) * st[a];
      return s;
    }));
  }
  plaidml::Attrs attrs;
  attrs.set("starts", starts).set("ends", ends).set("axes", axes).set("steps", steps);
  cx.set_output(0, plaidml::op("slice", {cx.tensor(0)}, attrs), cx.dtype(0));
}

// --- Expand, Tile ---

// numpy broadcasting of known dims; INVALID when they do not broadcast.
std::vector<int64_t> broadcast_dims(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.size() < b.size()) std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] == b[k] || b[k] == 1) continue;
    if (a[k] == 1) {
      a[k] = b[k];
      continue;
    }
    invalid("sizes {} and {} do not broadcast", a[k], b[k]);
  }
  return a;
}

void expand_op(NodeContext& cx) {
  cx.check_attrs({});
  auto shape = cx.sizes(1);
  if (!shape) {
    unsupported("input 'shape' must be known when the model is imported (a constant, or "
                "computed from shapes and constants)");
  }
  if (const HostTensor* h = foldable(cx, 0); h != nullptr && all_known(*shape)) {
    std::vector<int64_t> out_dims = broadcast_dims(h->dims, known_values(*shape));
    if (at_most_elements(out_dims, kFoldLimit)) {
      std::vector<int64_t> st = strides_of(h->dims);
      size_t lead = out_dims.size() - h->dims.size();
      return cx.set_output(0, host_remap(*h, out_dims, [&](const std::vector<int64_t>& idx) {
        int64_t s = 0;
        for (size_t a = 0; a < h->dims.size(); ++a) {
          if (h->dims[a] != 1) s += idx[a + lead] * st[a];
        }
        return s;
      }));
    }
  }
  // select(all-true of the target dims, x, x): Tile's numpy broadcasting gives the dims, also
  // where both sides are symbolic.
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor mask = true_of_dims(cx, exprs_of(cx, *shape));
  cx.set_output(0, plaidml::select(mask, x, x), cx.dtype(0));
}

void tile_op(NodeContext& cx) {
  cx.check_attrs({});
  std::vector<int64_t> reps = cx.required_ints(1, "repeats");
  size_t r = cx.rank(0);
  if (reps.size() != r) invalid("repeats has {} entries for rank {}", reps.size(), r);
  for (int64_t v : reps) {
    if (v < 0) invalid("repeats has a negative entry");
  }
  if (const HostTensor* h = foldable(cx, 0)) {
    std::vector<int64_t> out_dims;
    for (size_t k = 0; k < r; ++k) {
      int64_t d = 0;
      if (__builtin_mul_overflow(h->dims[k], reps[k], &d)) {
        invalid("repeats[{}] = {} times dim {} ({}) overflows 64 bits", k, reps[k], k,
                h->dims[k]);
      }
      out_dims.push_back(d);
    }
    if (at_most_elements(out_dims, kFoldLimit)) {
      std::vector<int64_t> st = strides_of(h->dims);
      return cx.set_output(0, host_remap(*h, out_dims, [&](const std::vector<int64_t>& idx) {
        int64_t s = 0;
        for (size_t a = 0; a < r; ++a) s += (idx[a] % h->dims[a]) * st[a];
        return s;
      }));
    }
  }
  if (r == 0) return cx.set_output(0, cx.input(0));
  cx.set_output(0, plaidml::op("tile", {cx.tensor(0)}, plaidml::Attrs().set("reps", reps)),
                cx.dtype(0));
}

}  // namespace

void pad_op(NodeContext& cx);  // ops_shape_pad.cc

std::vector<ConverterEntry> slice_converters() {
  return {
      {"Concat", {4, 11, 13}, concat_op},
      {"Split", {2, 11, 13, 18}, split_op},
      {"Slice", {1, 10, 11, 13}, slice_op},
      {"Expand", {8, 13}, expand_op},
      {"Tile", {6, 13}, tile_op},
      {"Pad", {2, 11, 13, 18, 19, 21, 23, 24, 25}, pad_op},
  };
}

}  // namespace plaidml::onnx_import::shape
