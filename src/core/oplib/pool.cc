// Pooling: max_pool and avg_pool over windows (kernel, strides, padding modes, layouts), and the
// global pools over every spatial axis. Padding is the contraction's skipped out-of-range
// accesses, so max ignores it; avg_pool divides by the count of the window's points inside the
// input (count_include_pad = 0), itself a contraction with the same window constraints.
#include "core/oplib/conv_geometry.h"

namespace plaidml::oplib {
namespace {

struct PoolSetup {
  SpatialAttrs attrs;
  Layout layout;
  SymbolicDims input;
  std::vector<int64_t> kernel;
  // Filled by window(): per spatial axis, output index, window index, input position.
  std::vector<IntExprPtr> x, k, pos, out_sizes;
  std::vector<Constraint> constraints;
};

Expected<SymbolicDims> pool_input(OpCall& call) {
  PLAIDML_ASSIGN(SymbolicDims d, call.dims(0));
  if (d.size() >= 3) return d;
  return call.error(StatusCode::kTypeError,
                    "argument 'input' must have rank 3 or more (batch, channels and spatial "
                    "axes), but it has rank {}",
                    d.size());
}

Expected<PoolSetup> read_pool(OpCall& call) {
  PoolSetup p;
  PLAIDML_ASSIGN(p.input, pool_input(call));
  size_t spatial = p.input.size() - 2;
  PLAIDML_ASSIGN(p.kernel, read_spatial_list(call, "kernel", spatial, 1, std::nullopt));
  PLAIDML_ASSIGN(p.attrs, read_spatial_attrs(call, spatial, p.kernel, false));
  for (size_t j = 0; j < p.attrs.pads.size(); ++j) {
    if (p.attrs.pads[j] >= p.kernel[j % spatial]) {
      return call.error(StatusCode::kInvalidArgument,
                        "attribute 'pads' entry {} is {}, but pads must be less than the kernel "
                        "size of their axis ({})",
                        j, p.attrs.pads[j], p.kernel[j % spatial]);
    }
  }
  p.layout = Layout{p.input.size(), p.attrs.channels_first};
  for (size_t a = 0; a < spatial; ++a) {
    p.x.push_back(call.index());
    p.k.push_back(call.index());
    IntExprPtr in = p.input[p.layout.spatial_axis(a)];
    AxisGeometry geo = forward_axis(p.attrs, a, in, se::lit(p.kernel[a]));
    p.out_sizes.push_back(geo.out);
    p.pos.push_back(
        se::sub(se::add(se::mul(se::lit(p.attrs.strides[a]), p.x[a]), p.k[a]), geo.pad_lo));
    p.constraints.push_back({p.k[a], se::lit(p.kernel[a])});
  }
  return p;
}

// The window contraction: O[n, x, c] = agg(I[n, stride*x + k - pad_lo, c]), k < kernel.
ValueId window(OpCall& call, const PoolSetup& p, ir::AggOp agg) {
  IntExprPtr n = call.index(), c = call.index();
  const Layout& l = p.layout;
  return call.contract(agg, ir::CombOp::kNone, l.place(n, p.x, c),
                       l.place(p.input[0], p.out_sizes, p.input[l.channel_axis()]),
                       {Access{call.operand(0), l.place(n, p.pos, c)}}, p.constraints);
}

Expected<ValueId> max_pool(OpCall& call) {
  PLAIDML_ASSIGN(PoolSetup p, read_pool(call));
  return call.finish(window(call, p, ir::AggOp::kMax));
}

// How many points of each window lie inside the input: [out...] (channels_first) or
// [out..., 1] (channels_last), to divide the window sums by. Integers, so that the quotient
// keeps the input's float dtype.
ValueId window_counts(OpCall& call, const PoolSetup& p) {
  std::vector<IntExprPtr> idx = p.x, sizes = p.out_sizes;
  if (!p.layout.channels_first) {
    idx.push_back(se::lit(0));
    sizes.push_back(se::lit(1));
  }
  std::vector<Constraint> constraints = p.constraints;
  for (size_t a = 0; a < p.pos.size(); ++a) {
    constraints.push_back({p.pos[a], p.input[p.layout.spatial_axis(a)]});
  }
  return call.contract(ir::AggOp::kSum, ir::CombOp::kNone, idx, sizes,
                       {Access{call.int_literal(1), {}}}, constraints);
}

Expected<ValueId> avg_pool(OpCall& call) {
  PLAIDML_ASSIGN(PoolSetup p, read_pool(call));
  PLAIDML_ASSIGN(bool include_pad, call.get_bool("count_include_pad", false));
  ValueId sum = window(call, p, ir::AggOp::kSum);
  if (!include_pad) return call.finish(call.div(sum, window_counts(call, p)));
  // Windows never reach past the padded input (no ceil mode): every one has kernel points.
  double points = 1;
  for (int64_t k : p.kernel) points *= static_cast<double>(k);
  return call.finish(call.div(sum, call.literal(points)));
}

Expected<ValueId> global_pool(OpCall& call, ir::AggOp agg) {
  PLAIDML_ASSIGN(SymbolicDims d, pool_input(call));
  PLAIDML_ASSIGN(std::string layout,
                 call.get_string("layout", "channels_last", {"channels_last", "channels_first"}));
  PLAIDML_ASSIGN(bool keepdims, call.get_bool("keepdims", false));
  Layout l{d.size(), layout == "channels_first"};
  IntExprPtr n = call.index(), c = call.index();
  std::vector<IntExprPtr> x = call.indices(d.size() - 2), out_idx{n}, out_sizes{d[0]};
  if (keepdims) {
    std::vector<IntExprPtr> zeros(x.size(), se::lit(0)), ones(x.size(), se::lit(1));
    out_idx = l.place(n, zeros, c);
    out_sizes = l.place(d[0], ones, d[l.channel_axis()]);
  } else {
    out_idx.push_back(c);
    out_sizes.push_back(d[l.channel_axis()]);
  }
  ValueId r = call.contract(agg, ir::CombOp::kNone, out_idx, out_sizes,
                            {Access{call.operand(0), l.place(n, x, c)}});
  if (agg == ir::AggOp::kSum) {
    IntExprPtr points = d[l.spatial_axis(0)];
    for (size_t a = 1; a < x.size(); ++a) points = se::mul(points, d[l.spatial_axis(a)]);
    r = call.div(r, call.size_value(points));
  }
  return call.finish(r);
}

Expected<ValueId> global_avg_pool(OpCall& call) { return global_pool(call, ir::AggOp::kSum); }
Expected<ValueId> global_max_pool(OpCall& call) { return global_pool(call, ir::AggOp::kMax); }

}  // namespace

std::vector<OpDef> pool_ops() {
  return {
      {"max_pool", {"input"}, 1, max_pool},
      {"avg_pool", {"input"}, 1, avg_pool},
      {"global_avg_pool", {"input"}, 1, global_avg_pool},
      {"global_max_pool", {"input"}, 1, global_max_pool},
  };
}

}  // namespace plaidml::oplib
