// ONNX operators: shape group. This file: Constant, Shape, Size and the ops that only change dims
// (Reshape, Flatten, Squeeze, Unsqueeze) or their order (Transpose). The rest of the group is in
// ops_shape_slice.cc (Concat, Split, Slice, Expand, Tile, Pad), ops_shape_index.cc (Gather*,
// Scatter*, OneHot) and ops_shape_gen.cc (ConstantOfShape, Range, EyeLike, Trilu,
// DepthToSpace, SpaceToDepth, NonZero, Unique).
//
// Shape subgraphs of exported models (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) must
// compute at import: Shape gives sizes (SymInt, symbolic where the dim is), and every op here
// keeps known contents known (folded HostTensor) and sizes sizes.
#include <algorithm>
#include <set>

#include "layout.h"
#include "ops_shape_util.h"

namespace plaidml::onnx_import {
namespace {

using namespace shape;  // NOLINT: the group's own helpers

void constant_op(NodeContext& cx) {
  cx.check_attrs({"value", "value_float", "value_floats", "value_int", "value_ints",
                  "value_string", "value_strings", "sparse_value"});
  if (cx.has_attr("sparse_value")) unsupported("a sparse constant (sparse_value) is not supported");
  if (cx.has_attr("value_string") || cx.has_attr("value_strings")) {
    unsupported("string constants are not supported");
  }
  if (auto t = cx.attr_tensor("value")) return cx.set_output(0, *t);
  if (cx.has_attr("value_float")) {
    return cx.set_output(0, HostTensor::from_doubles(PLAIDML_DTYPE_FLOAT32, {},
                                                     {cx.attr_float("value_float", 0)}));
  }
  if (cx.has_attr("value_floats")) {
    auto v = cx.attr_floats("value_floats");
    return cx.set_output(
        0, HostTensor::from_doubles(PLAIDML_DTYPE_FLOAT32, {static_cast<int64_t>(v.size())}, v));
  }
  if (cx.has_attr("value_int")) {
    return cx.set_output(0, HostTensor::from_ints(PLAIDML_DTYPE_INT64, {},
                                                  {cx.attr_int("value_int", 0)}));
  }
  if (cx.has_attr("value_ints")) {
    auto v = cx.attr_ints("value_ints");
    return cx.set_output(
        0, HostTensor::from_ints(PLAIDML_DTYPE_INT64, {static_cast<int64_t>(v.size())}, v));
  }
  invalid("Constant has none of the value attributes");
}

// Shape (start/end from version 15, clamped like Python slicing without a step).
void shape_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 15 ? std::vector<std::string>{"start", "end"}
                                    : std::vector<std::string>{});
  std::vector<SymInt> dims = input_dims(cx, 0);
  int64_t r = static_cast<int64_t>(dims.size());
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  int64_t start = clamp(cx.attr_int("start", 0));
  int64_t end = clamp(cx.attr_int("end", r));
  std::vector<SymInt> out;
  for (int64_t k = start; k < end; ++k) out.push_back(dims[static_cast<size_t>(k)]);
  cx.set_sizes_output(0, out);
}

void size_op(NodeContext& cx) {
  cx.check_attrs({});
  std::vector<SymInt> dims = input_dims(cx, 0);
  cx.set_sizes_output(0, {sym_product(cx, dims, 0, dims.size())}, true);
}

// Reshape: 0 copies the input's dim (a literal 0 with allowzero=1, from version 14), -1 is
// inferred from the element count; target sizes may be symbolic (from Shape).
void reshape_op(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 14 ? std::vector<std::string>{"allowzero"}
                                    : std::vector<std::string>{});
  bool allowzero = cx.attr_int("allowzero", 0) != 0;
  auto target = cx.sizes(1);
  if (!target) {
    unsupported("input 'shape' must be known when the model is imported (a constant, or computed "
                "from shapes and constants); a shape computed at run time is not supported");
  }
  std::vector<SymInt> in = input_dims(cx, 0);
  std::vector<SymInt> out = *target;
  std::optional<size_t> infer;
  bool has_zero = false;
  for (size_t k = 0; k < out.size(); ++k) {
    if (!out[k].known()) continue;
    int64_t t = *out[k].value;
    if (t == 0 && !allowzero) {
      if (k >= in.size()) invalid("shape entry {} is 0 but the input has rank {}", k, in.size());
      out[k] = in[k];
    } else if (t == 0) {
      has_zero = true;
    } else if (t == -1) {
      if (infer) invalid("the shape has more than one -1");
      infer = k;
    } else if (t < -1) {
      invalid("shape entry {} is {}", k, t);
    }
  }
  if (infer) {
    if (has_zero) invalid("the shape has both -1 and 0 with allowzero=1");
    std::vector<SymInt> rest = out;
    rest[*infer] = known(1);
    SymInt others = sym_product(cx, rest, 0, rest.size());
    if (others.known() && *others.value == 0) {
      unsupported("-1 cannot be inferred when the other sizes have no elements");
    }
    out[*infer] = sym_div(cx, sym_product(cx, in, 0, in.size()), others);
  }
  if (all_known(in) && all_known(out)) {
    // Through sym_product, which refuses a count that overflows.
    int64_t from = *sym_product(cx, in, 0, in.size()).value;
    int64_t to = *sym_product(cx, out, 0, out.size()).value;
    if (from != to) invalid("cannot reshape {} elements to {} elements", from, to);
  }
  set_reshaped(cx, 0, 0, out);
}

void flatten_op(NodeContext& cx) {
  cx.check_attrs({"axis"});
  std::vector<SymInt> dims = input_dims(cx, 0);
  int64_t r = static_cast<int64_t>(dims.size());
  int64_t axis = cx.attr_int("axis", 1);
  if (axis < (cx.version() >= 11 ? -r : 0) || axis > r) invalid("axis {} is out of range", axis);
  if (axis < 0) axis += r;
  size_t a = static_cast<size_t>(axis);
  set_reshaped(cx, 0, 0, {sym_product(cx, dims, 0, a), sym_product(cx, dims, a, dims.size())});
}

// The axes of Squeeze/Unsqueeze: an attribute before version 13, an input from 13.
std::optional<std::vector<int64_t>> axes_of(NodeContext& cx, bool required) {
  if (cx.version() < 13) {
    cx.check_attrs({"axes"});
    if (!cx.has_attr("axes")) {
      if (required) invalid("attribute 'axes' is required");
      return std::nullopt;
    }
    return cx.attr_ints("axes");
  }
  cx.check_attrs({});
  if (!cx.has_input(1)) {
    if (required) invalid("input 'axes' is required");
    return std::nullopt;
  }
  return cx.required_ints(1, "axes");
}

void squeeze_op(NodeContext& cx) {
  std::vector<SymInt> dims = input_dims(cx, 0);
  auto axes = axes_of(cx, false);
  std::set<size_t> drop;
  if (!axes) {
    for (size_t k = 0; k < dims.size(); ++k) {
      if (!dims[k].known()) {
        unsupported("Squeeze without axes needs every size known at import (dim {} is "
                    "symbolic)", k);
      }
      if (*dims[k].value == 1) drop.insert(k);
    }
  } else {
    for (int64_t a : *axes) {
      size_t k = cx.normalize_axis(a, dims.size(), "axis");
      if (!drop.insert(k).second) invalid("axis {} is named twice", a);
      if (dims[k].known() && *dims[k].value != 1) {
        invalid("axis {} has size {}, not 1", a, *dims[k].value);
      }
    }
  }
  std::vector<SymInt> out;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!drop.count(k)) out.push_back(dims[k]);
  }
  set_reshaped(cx, 0, 0, out);
}

void unsqueeze_op(NodeContext& cx) {
  std::vector<SymInt> dims = input_dims(cx, 0);
  std::vector<int64_t> axes = *axes_of(cx, true);
  size_t rank = dims.size() + axes.size();
  std::vector<bool> added(rank, false);
  for (int64_t a : axes) {
    size_t k = cx.normalize_axis(a, rank, "axis");
    if (added[k]) invalid("axis {} is named twice", a);
    added[k] = true;
  }
  std::vector<SymInt> out;
  size_t next = 0;
  for (size_t k = 0; k < rank; ++k) out.push_back(added[k] ? known(1) : dims[next++]);
  set_reshaped(cx, 0, 0, out);
}

void transpose_op(NodeContext& cx) {
  cx.check_attrs({"perm"});
  size_t r = cx.rank(0);
  std::vector<int64_t> perm;
  for (size_t k = 0; k < r; ++k) perm.push_back(static_cast<int64_t>(r - 1 - k));
  perm = cx.attr_ints("perm", perm);
  if (perm.size() != r) invalid("perm has {} entries for rank {}", perm.size(), r);
  std::vector<bool> seen(r, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<size_t>(p)]) {
      invalid("perm is not a permutation of 0..{}", r - 1);
    }
    seen[static_cast<size_t>(p)] = true;
  }
  bool identity = true;
  for (size_t k = 0; k < r; ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
  if (identity) return set_reshaped(cx, 0, 0, input_dims(cx, 0));
  if (const HostTensor* h = foldable(cx, 0)) return cx.set_output(0, transpose(*h, perm));
  cx.set_output(0, plaidml::op("transpose", {cx.tensor(0)}, plaidml::Attrs().set("perm", perm)),
                cx.dtype(0));
}

}  // namespace

std::vector<ConverterEntry> shape_converters() {
  std::vector<ConverterEntry> list = {
      {"Constant", {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}, constant_op},
      {"Shape", {1, 13, 15, 19, 21, 23, 24, 25}, shape_op},
      {"Size", {1, 13, 19, 21, 23, 24, 25}, size_op},
      {"Reshape", {5, 13, 14, 19, 21, 23, 24, 25}, reshape_op},
      {"Flatten", {1, 9, 11, 13, 21, 23, 24, 25}, flatten_op},
      {"Squeeze", {1, 11, 13, 21, 23, 24, 25}, squeeze_op},
      {"Unsqueeze", {1, 11, 13, 21, 23, 24, 25}, unsqueeze_op},
      {"Transpose", {1, 13, 21, 23, 24, 25}, transpose_op},
  };
  for (auto* more : {&shape::slice_converters, &shape::index_converters, &shape::gen_converters}) {
    for (auto& e : more()) list.push_back(std::move(e));
  }
  return list;
}

}  // namespace plaidml::onnx_import
