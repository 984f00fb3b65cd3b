// ONNX Pad (versions 2 to 25): modes constant, edge, reflect and (from 19) wrap; pads as an
// attribute (2) or an input (11), negative pads crop; axes input from 18.
#include <algorithm>
#include <cstring>
#include <limits>

#include "ops_shape_util.h"

namespace plaidml::onnx_import::shape {
namespace {

struct PadSpec {
  std::string mode;
  std::vector<int64_t> lo, hi;  // per axis of the input, negative: crop
};

PadSpec pad_spec(NodeContext& cx) {
  PadSpec p;
  size_t r = cx.rank(0);
  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  if (cx.version() < 11) {
    cx.check_attrs({"mode", "pads", "value"});
    if (!cx.has_attr("pads")) invalid("attribute 'pads' is required");
    pads = cx.attr_ints("pads");
  } else {
    cx.check_attrs({"mode"});
    pads = cx.required_ints(1, "pads");
    if (cx.version() >= 18 && cx.has_input(3)) axes = cx.required_ints(3, "axes");
  }
  if (axes.empty()) {
    for (size_t k = 0; k < r; ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (pads.size() != 2 * axes.size()) {
    invalid("pads has {} entries for {} axes", pads.size(), axes.size());
  }
  p.lo.assign(r, 0);
  p.hi.assign(r, 0);
  std::vector<bool> seen(r, false);
  for (size_t j = 0; j < axes.size(); ++j) {
    size_t a = cx.normalize_axis(axes[j], r, "axis");
    if (seen[a]) invalid("axis {} is named twice", axes[j]);
    seen[a] = true;
    p.lo[a] = pads[j];
    p.hi[a] = pads[j + axes.size()];
  }
  p.mode = cx.attr_string("mode", "constant");
  bool wrap_ok = cx.version() >= 19;
  if (p.mode != "constant" && p.mode != "edge" && p.mode != "reflect" &&
      !(p.mode == "wrap" && wrap_ok)) {
    invalid("mode '{}' is not a Pad mode of version {}", p.mode, cx.version());
  }
  return p;
}

// The constant of constant mode as a known scalar (nullopt: known only when the program runs).
std::optional<HostTensor> known_pad_value(NodeContext& cx) {
  plaidml_dtype d = cx.dtype(0);
  if (cx.version() < 11) return HostTensor::from_doubles(d, {}, {cx.attr_float("value", 0.0)});
  if (!cx.has_input(2)) return HostTensor::zeros(d, {});
  const HostTensor* h = cx.host(2);
  if (h == nullptr) return std::nullopt;
  if (h->dtype != d) invalid("constant_value has type {}, the data {}", dtype_text(h->dtype), dtype_text(d));
  if (h->elements() != 1) invalid("constant_value has {} elements, not 1", h->elements());
  return host_reshape(*h, {});
}

// The input index that output index o of an axis reads (lo: the low pad, d: the input's size),
// or -1 for the constant.
int64_t pad_source(const std::string& mode, int64_t o, int64_t lo, int64_t d) {
  int64_t j = o - lo;
  if (j >= 0 && j < d) return j;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp(j, int64_t{0}, d - 1);
  if (mode == "reflect") return j < 0 ? -j : 2 * (d - 1) - j;
  return ((j % d) + d) % d;  // wrap
}

// Checks the pads the non-constant modes can take on an axis of known size d.
void check_axis(const PadSpec& p, size_t a, int64_t d) {
  int64_t lo = std::max<int64_t>(p.lo[a], 0), hi = std::max<int64_t>(p.hi[a], 0);
  if (lo == 0 && hi == 0) return;
  int64_t kept = d + std::min<int64_t>(p.lo[a], 0) + std::min<int64_t>(p.hi[a], 0);
  if (p.mode == "edge" && kept < 1) invalid("edge padding of an empty axis {}", a);
  if (p.mode == "reflect" && (lo >= kept || hi >= kept)) {
    unsupported("reflect padding of {}/{} on axis {} of size {}: pads must be smaller than the "
                "axis (repeated reflection is not supported)", lo, hi, a, kept);
  }
  if (p.mode == "wrap" && (lo > kept || hi > kept)) {
    unsupported("wrap padding of {}/{} on axis {} of size {}: pads larger than the axis are not "
                "supported", lo, hi, a, kept);
  }
}

HostTensor host_pad(const HostTensor& h, const PadSpec& p, const HostTensor* fill) {
  size_t r = h.dims.size();
  std::vector<int64_t> out_dims;
  for (size_t a = 0; a < r; ++a) {
    out_dims.push_back(h.dims[a] + p.lo[a] + p.hi[a]);
    if (out_dims.back() < 0) invalid("pads crop axis {} below size 0", a);
    // Non-constant modes read inside what remains after cropping: crop first (a slice), then
    // pad that.
    if (p.mode != "constant" && (p.lo[a] < 0 || p.hi[a] < 0) && (p.lo[a] > 0 || p.hi[a] > 0)) {
      unsupported("mixing negative and positive pads on one axis in mode '{}'", p.mode);
    }
    if (p.mode != "constant") check_axis(p, a, h.dims[a]);
  }
  std::vector<int64_t> st = strides_of(h.dims);
  return host_remap(
      h, out_dims,
      [&](const std::vector<int64_t>& idx) {
        int64_t s = 0;
        for (size_t a = 0; a < r; ++a) {
          int64_t j = pad_source(p.mode, idx[a], p.lo[a], h.dims[a]);
          if (j < 0) return int64_t{-1};
          s += j * st[a];
        }
        return s;
      },
      fill ? fill->data : nullptr);
}

// Constant padding: O[i + lo] = X[i] over the padded dims, default value.
plaidml::Tensor constant_pad(NodeContext& cx, const plaidml::Tensor& x,
                             const std::vector<SymInt>& dims, const PadSpec& p,
                             const plaidml::Tensor& value) {
  std::vector<plaidml::IndexExpr> out_dims, idx = index_vars(cx, dims.size()), at;
  for (size_t a = 0; a < dims.size(); ++a) {
    out_dims.push_back(expr_of(cx, dims[a]) + (p.lo[a] + p.hi[a]));
    at.push_back(idx[a] + p.lo[a]);
  }
  plaidml::Contraction c = cx.builder().contraction(out_dims);
  plaidml::OutputAccess(&c, at) = plaidml::Combination(plaidml::Access(x, idx));
  c.set_default(value);
  return c;
}

// Wrap padding of one axis: [x[d-lo:], x, x[:hi]] (sizes known, pads at most d).
plaidml::Tensor wrap_axis(NodeContext& cx, const plaidml::Tensor& x, const std::vector<SymInt>& dims,
                          size_t a, int64_t lo, int64_t hi) {
  int64_t d = *dims[a].value;
  std::vector<plaidml::Tensor> parts;
  if (lo > 0) parts.push_back(take_range(cx, x, dims, a, known(d - lo), known(lo)));
  parts.push_back(x);
  if (hi > 0) parts.push_back(take_range(cx, x, dims, a, known(0), known(hi)));
  if (parts.size() == 1) return x;
  return plaidml::op("concatenate", parts, plaidml::Attrs().set("axis", static_cast<int64_t>(a)));
}

}  // namespace

void pad_op(NodeContext& cx) {
  PadSpec p = pad_spec(cx);
  size_t r = cx.rank(0);
  std::optional<HostTensor> value;
  if (p.mode == "constant") value = known_pad_value(cx);
  if (const HostTensor* h = foldable(cx, 0); h != nullptr && (p.mode != "constant" || value)) {
    std::vector<int64_t> out_dims;
    for (size_t a = 0; a < r; ++a) out_dims.push_back(h->dims[a] + p.lo[a] + p.hi[a]);
    if (at_most_elements(out_dims, kFoldLimit)) {
      return cx.set_output(0, host_pad(*h, p, value ? &*value : nullptr));
    }
  }
  plaidml::Tensor x = cx.tensor(0);
  std::vector<SymInt> dims = input_dims(cx, 0);
  // Negative pads crop first (a slice), then the rest pads what is left.
  bool crop = false;
  std::vector<int64_t> starts, ends, axes;
  for (size_t a = 0; a < r; ++a) {
    if (p.lo[a] >= 0 && p.hi[a] >= 0) continue;
    crop = true;
    if (p.mode != "constant" && (p.lo[a] > 0 || p.hi[a] > 0)) {
      unsupported("mixing negative and positive pads on one axis in mode '{}'", p.mode);
    }
    axes.push_back(static_cast<int64_t>(a));
    starts.push_back(std::max<int64_t>(0, -p.lo[a]));
    ends.push_back(p.hi[a] < 0 ? p.hi[a] : std::numeric_limits<int64_t>::max());
    dims[a] = sym_add(cx, dims[a], known(std::min<int64_t>(p.lo[a], 0) + std::min<int64_t>(p.hi[a], 0)));
    p.lo[a] = std::max<int64_t>(p.lo[a], 0);
    p.hi[a] = std::max<int64_t>(p.hi[a], 0);
  }
  if (crop) {
    plaidml::Attrs attrs;
    attrs.set("starts", starts).set("ends", ends).set("axes", axes);
    x = plaidml::op("slice", {x}, attrs);
  }
  bool any = false;
  for (size_t a = 0; a < r; ++a) any = any || p.lo[a] > 0 || p.hi[a] > 0;
  if (!any) return cx.set_output(0, x, cx.dtype(0));
  if (p.mode == "constant") {
    plaidml::Tensor v = value ? cx.constant(*value) : plaidml::reshape(cx.tensor(2), {});
    return cx.set_output(0, constant_pad(cx, x, dims, p, v), cx.dtype(0));
  }
  for (size_t a = 0; a < r; ++a) {
    if (dims[a].known()) {
      check_axis(p, a, *dims[a].value);
    } else if (p.mode == "wrap" && (p.lo[a] > 0 || p.hi[a] > 0)) {
      unsupported("wrap padding needs the size of axis {} known at import", a);
    }
  }
  if (p.mode == "wrap") {
    for (size_t a = 0; a < r; ++a) {
      if (p.lo[a] == 0 && p.hi[a] == 0) continue;
      x = wrap_axis(cx, x, dims, a, p.lo[a], p.hi[a]);
      dims[a] = known(*dims[a].value + p.lo[a] + p.hi[a]);
    }
    return cx.set_output(0, x, cx.dtype(0));
  }
  std::vector<int64_t> pads = p.lo;
  pads.insert(pads.end(), p.hi.begin(), p.hi.end());
  cx.set_output(0, plaidml::op("pad", {x}, plaidml::Attrs().set("pads", pads).set("mode", p.mode)),
                cx.dtype(0));
}

}  // namespace plaidml::onnx_import::shape
