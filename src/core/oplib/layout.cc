// Layout ops: concatenate, slice, pad, tile, repeat (docs/ops-shape.md). Each is a few `=`
// contractions (out-of-range accesses are skipped, which gives clamping and borders for free)
// plus reshapes; sizes stay symbolic.
#include <limits>

#include "core/oplib/layout_util.h"

namespace plaidml::oplib {
namespace {

namespace se = ir::size_expr;
using ir::AggOp;
using ir::CombOp;

// Non-concatenated dims of input k must equal those of input 0: an error now when both are
// literals, else when the program is bound.
Status check_concat_dims(OpCall& c, const std::vector<SymbolicDims>& dims, size_t axis) {
  for (size_t k = 1; k < dims.size(); ++k) {
    if (dims[k].size() != dims[0].size()) {
      return c.error(StatusCode::kTypeError, "argument '{}' has rank {} but '{}' has rank {}",
                     c.operand_name(k), dims[k].size(), c.operand_name(0), dims[0].size());
    }
    for (size_t d = 0; d < dims[0].size(); ++d) {
      if (d == axis) continue;
      PLAIDML_TRY(c.require(ir::AssertOp::kEq, dims[k][d], dims[0][d],
                            fmt::format("argument '{}' has size {{0}} on axis {} but '{}' has "
                                        "size {{1}}",
                                        c.operand_name(k), d, c.operand_name(0)),
                            {dims[k][d], dims[0][d]}));
    }
  }
  return Status::ok();
}

Expected<ValueId> concatenate_op(OpCall& c) {
  std::vector<SymbolicDims> dims;
  for (size_t k = 0; k < c.operand_count(); ++k) {
    PLAIDML_ASSIGN(SymbolicDims d, c.dims(k));
    dims.push_back(std::move(d));
  }
  size_t rank = dims[0].size();
  if (rank == 0) {
    return c.error(StatusCode::kTypeError, "argument '{}' is a scalar; it needs rank 1 or more",
                   c.operand_name(0));
  }
  PLAIDML_ASSIGN(int64_t axis_attr, c.get_int("axis", 0));
  PLAIDML_ASSIGN(int64_t axis, c.normalize_axis(axis_attr, rank, "axis"));
  PLAIDML_TRY(check_concat_dims(c, dims, axis));
  SymbolicDims out = dims[0];
  out[axis] = se::lit(0);
  for (const auto& d : dims) out[axis] = se::add(out[axis], d[axis]);
  std::optional<ValueId> result;
  IntExprPtr offset = se::lit(0);
  for (size_t k = 0; k < dims.size(); ++k) {
    std::vector<IntExprPtr> in = c.indices(rank);
    std::vector<IntExprPtr> at = in;
    at[axis] = se::add(in[axis], offset);
    result =
        c.contract(AggOp::kAssign, CombOp::kNone, at, out, {Access{c.operand(k), in}}, {}, result);
    offset = se::add(offset, dims[k][axis]);
  }
  return c.finish(*result);
}

// --- slice ---

struct SliceAxis {
  IntExprPtr start;  // clamped first index read
  IntExprPtr size;
  int64_t step = 1;
};

// ONNX Slice along a dim of size d: negative start/end count from the end, then clamp to
// [0, d] (step > 0) or [0, d-1] / [-1, d-1] (step < 0).
SliceAxis slice_axis(const IntExprPtr& d, int64_t start, int64_t end, int64_t step) {
  auto from_end = [&](int64_t v) { return v < 0 ? se::add(d, se::lit(v)) : se::lit(v); };
  IntExprPtr s = from_end(start);
  IntExprPtr e = from_end(end);
  IntExprPtr span;
  if (step > 0) {
    s = se::min(se::max(s, se::lit(0)), d);
    e = se::min(se::max(e, se::lit(0)), d);
    span = se::sub(e, s);
  } else {
    IntExprPtr last = se::sub(d, se::lit(1));
    s = se::min(se::max(s, se::lit(0)), last);
    e = se::min(se::max(e, se::lit(-1)), last);
    span = se::sub(s, e);
  }
  int64_t m = step > 0 ? step : -step;
  IntExprPtr size = se::max(se::lit(0), se::div(se::add(span, se::lit(m - 1)), se::lit(m)));
  return {s, size, step};
}

// Attribute values beyond any size mean "to the end"; clamping them here keeps the printed
// sizes short and the arithmetic far from int64 overflow.
int64_t clamp_bound(int64_t v) {
  constexpr int64_t kBig = int64_t{1} << 40;
  return std::clamp(v, -kBig, kBig);
}

Expected<ValueId> slice_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(std::vector<int64_t> starts, c.get_ints("starts", std::nullopt));
  PLAIDML_ASSIGN(std::vector<int64_t> ends, c.get_ints("ends", std::nullopt));
  std::vector<int64_t> all;
  for (size_t k = 0; k < x.size() && k < starts.size(); ++k) all.push_back(int64_t(k));
  PLAIDML_ASSIGN(std::vector<int64_t> axes_attr, c.get_ints("axes", all));
  PLAIDML_ASSIGN(std::vector<int64_t> steps,
                 c.get_ints("steps", std::vector<int64_t>(starts.size(), 1)));
  if (ends.size() != starts.size() || axes_attr.size() != starts.size() ||
      steps.size() != starts.size()) {
    return c.error(StatusCode::kInvalidArgument,
                   "attributes 'starts', 'ends', 'axes' and 'steps' must have the same length, "
                   "got {}, {}, {} and {}",
                   starts.size(), ends.size(), axes_attr.size(), steps.size());
  }
  PLAIDML_ASSIGN(std::vector<int64_t> axes, util::normalize_axes(c, axes_attr, x.size(), "axes"));
  std::vector<IntExprPtr> in = c.indices(x.size());
  std::vector<IntExprPtr> at(in);
  SymbolicDims out = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (steps[k] == 0) {
      return c.error(StatusCode::kInvalidArgument, "attribute 'steps' has a 0 at position {}", k);
    }
    SliceAxis s = slice_axis(x[axes[k]], clamp_bound(starts[k]), clamp_bound(ends[k]), steps[k]);
    // in = start + step * out: the output index is the contraction's own index.
    at[axes[k]] = se::add(s.start, se::mul(se::lit(s.step), in[axes[k]]));
    out[axes[k]] = s.size;
  }
  std::vector<IntExprPtr> out_idx = in;
  return c.finish(
      c.contract(AggOp::kAssign, CombOp::kNone, out_idx, out, {Access{c.operand(0), at}}));
}

// --- pad ---

struct PadSpec {
  std::vector<int64_t> lo, hi;
  std::string mode;
};

Expected<PadSpec> pad_spec(OpCall& c, size_t rank) {
  PadSpec p;
  PLAIDML_ASSIGN(std::vector<int64_t> pads, c.get_ints("pads", std::nullopt));
  if (pads.size() != 2 * rank) {
    return c.error(StatusCode::kInvalidArgument,
                   "attribute 'pads' has {} entries but the input has rank {} (needs {})",
                   pads.size(), rank, 2 * rank);
  }
  for (size_t k = 0; k < pads.size(); ++k) {
    if (pads[k] < 0) {
      return c.error(StatusCode::kInvalidArgument,
                     "attribute 'pads' has {} at position {}; pads must be >= 0", pads[k], k);
    }
  }
  p.lo.assign(pads.begin(), pads.begin() + rank);
  p.hi.assign(pads.begin() + rank, pads.end());
  PLAIDML_ASSIGN(p.mode, c.get_string("mode", "constant", {"constant", "edge", "reflect"}));
  return p;
}

// The sizes edge and reflect need: an error now for a literal size, required at bind otherwise.
Status check_border_sizes(OpCall& c, const SymbolicDims& x, const PadSpec& p) {
  for (size_t a = 0; a < x.size(); ++a) {
    if (p.lo[a] == 0 && p.hi[a] == 0) continue;
    // edge copies the edge element; reflect reads pad elements past it (numpy: pad < size).
    int64_t need = p.mode == "edge" ? 1 : std::max(p.lo[a], p.hi[a]) + 1;
    PLAIDML_TRY(c.require(ir::AssertOp::kGe, x[a], se::lit(need),
                          fmt::format("mode '{}' needs size >= {} on axis {} (pads {} and {}), but "
                                      "it is {{0}}",
                                      p.mode, need, a, p.lo[a], p.hi[a]),
                          {x[a]}));
  }
  return Status::ok();
}

// One border of axis a for edge/reflect: out[.., at + j, ..] = prev[.., src(j), ..], j < width.
ValueId pad_border(OpCall& c, ValueId prev, const SymbolicDims& out, size_t a, IntExprPtr at,
                   IntExprPtr src, IntExprPtr j, int64_t width) {
  std::vector<IntExprPtr> idx = c.indices(out.size());
  std::vector<IntExprPtr> o = idx;
  std::vector<IntExprPtr> i = idx;
  o[a] = se::add(at, j);
  i[a] = std::move(src);
  return c.contract(AggOp::kAssign, CombOp::kNone, o, out, {Access{prev, i}},
                    {Constraint{j, se::lit(width)}}, prev);
}

ValueId pad_borders(OpCall& c, ValueId p, const SymbolicDims& x, const SymbolicDims& out,
                    const PadSpec& s) {
  bool edge = s.mode == "edge";
  for (size_t a = 0; a < x.size(); ++a) {
    IntExprPtr lo = se::lit(s.lo[a]);
    IntExprPtr end = se::add(lo, x[a]);  // one past the input's last element
    if (s.lo[a] > 0) {
      IntExprPtr j = c.index();
      // edge: X[0]; reflect: X[lo - j] (the edge itself excluded).
      IntExprPtr src = edge ? lo : se::sub(se::lit(2 * s.lo[a]), j);
      p = pad_border(c, p, out, a, se::lit(0), src, j, s.lo[a]);
    }
    if (s.hi[a] > 0) {
      IntExprPtr j = c.index();
      // edge: X[size - 1]; reflect: X[size - 2 - j].
      IntExprPtr src = edge ? se::sub(end, se::lit(1)) : se::sub(se::sub(end, se::lit(2)), j);
      p = pad_border(c, p, out, a, end, src, j, s.hi[a]);
    }
  }
  return p;
}

Expected<ValueId> pad_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(PadSpec s, pad_spec(c, x.size()));
  PLAIDML_ASSIGN(double value, c.get_float("value", 0.0));
  if (s.mode != "constant" && c.has_attr("value")) {
    return c.error(StatusCode::kInvalidArgument,
                   "attribute 'value' applies to mode 'constant' only, not '{}'", s.mode);
  }
  if (s.mode != "constant") PLAIDML_TRY(check_border_sizes(c, x, s));
  SymbolicDims out;
  std::vector<IntExprPtr> in = c.indices(x.size());
  std::vector<IntExprPtr> at;
  for (size_t a = 0; a < x.size(); ++a) {
    out.push_back(se::add(x[a], se::lit(s.lo[a] + s.hi[a])));
    at.push_back(se::add(in[a], se::lit(s.lo[a])));
  }
  std::optional<ValueId> init;
  if (s.mode == "constant") init = c.literal(value);
  ValueId p =
      c.contract(AggOp::kAssign, CombOp::kNone, at, out, {Access{c.operand(0), in}}, {}, init);
  if (s.mode != "constant") p = pad_borders(c, p, x, out, s);
  return c.finish(p);
}

// --- tile, repeat ---

Expected<ValueId> tile_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(std::vector<int64_t> reps, c.get_ints("reps", std::nullopt));
  for (size_t k = 0; k < reps.size(); ++k) {
    if (reps[k] < 0) {
      return c.error(StatusCode::kInvalidArgument,
                     "attribute 'reps' has {} at position {}; reps must be >= 0", reps[k], k);
    }
  }
  size_t rank = std::max(reps.size(), x.size());
  ValueId in = c.operand(0);
  if (rank > x.size()) {
    x.insert(x.begin(), rank - x.size(), se::lit(1));  // numpy: leading axes of size 1
    in = util::reshape(c, in, x);
  }
  reps.insert(reps.begin(), rank - reps.size(), 1);
  // O[r0, i0, r1, i1, ... : R0, D0, R1, D1, ...] = =(X[i0, i1, ...]), then merge the pairs.
  std::vector<IntExprPtr> idx = c.indices(rank);
  std::vector<IntExprPtr> o;
  SymbolicDims sizes, merged;
  for (size_t a = 0; a < rank; ++a) {
    if (reps[a] != 1) {
      o.push_back(c.index());
      sizes.push_back(se::lit(reps[a]));
    }
    o.push_back(idx[a]);
    sizes.push_back(x[a]);
    merged.push_back(se::mul(se::lit(reps[a]), x[a]));
  }
  ValueId t = c.contract(AggOp::kAssign, CombOp::kNone, o, sizes, {Access{in, idx}});
  return c.finish(util::reshape(c, t, merged));
}

Expected<ValueId> repeat_op(OpCall& c) {
  PLAIDML_ASSIGN(SymbolicDims x, c.dims(0));
  PLAIDML_ASSIGN(int64_t repeats, c.get_int("repeats", std::nullopt));
  if (repeats < 0) {
    return c.error(StatusCode::kInvalidArgument, "attribute 'repeats' is {}; it must be >= 0",
                   repeats);
  }
  ValueId in = c.operand(0);
  int64_t axis = 0;
  if (c.has_attr("axis")) {
    PLAIDML_ASSIGN(int64_t given, c.get_int("axis", std::nullopt));
    PLAIDML_ASSIGN(axis, c.normalize_axis(given, x.size(), "axis"));
  } else {
    x = {util::product(x, 0, x.size())};  // numpy: no axis repeats the flattened input
    in = util::reshape(c, in, x);
  }
  // O[..., i, r, ... : ..., D, R, ...] = =(X[..., i, ...]), then merge (i, r).
  std::vector<IntExprPtr> idx = c.indices(x.size());
  std::vector<IntExprPtr> o = idx;
  SymbolicDims sizes = x;
  o.insert(o.begin() + axis + 1, c.index());
  sizes.insert(sizes.begin() + axis + 1, se::lit(repeats));
  ValueId t = c.contract(AggOp::kAssign, CombOp::kNone, o, sizes, {Access{in, idx}});
  SymbolicDims merged = x;
  merged[axis] = se::mul(x[axis], se::lit(repeats));
  return c.finish(util::reshape(c, t, merged));
}

}  // namespace

std::vector<OpDef> layout_ops() {
  return {
      OpDef{"concatenate", {"inputs"}, 1, concatenate_op, true},
      OpDef{"pad", {"input"}, 1, pad_op},
      OpDef{"repeat", {"input"}, 1, repeat_op},
      OpDef{"slice", {"input"}, 1, slice_op},
      OpDef{"tile", {"input"}, 1, tile_op},
  };
}

}  // namespace plaidml::oplib
