// conv: 1-D, 2-D and 3-D convolution (strides, dilations, padding modes, groups, layouts) as one
// contraction: O[n, x, co] = +(I[n, stride*x + dilation*k - pad_lo, ci] * K[k, ci, co]). Padding
// needs no padded copy: out-of-range input accesses are simply not counted (docs/tile.md
// section 2).
#include "core/ir/printer.h"
#include "core/oplib/conv_geometry.h"

namespace plaidml::oplib {

namespace {

Expected<ValueId> conv(OpCall& call) {
  PLAIDML_ASSIGN(ConvSetup s, read_conv(call));
  PLAIDML_TRY(check_channels(call, s, s.channels, s.k_in, s.k_out, "output channels"));
  PLAIDML_ASSIGN(std::optional<ValueId> bias, bias_default(call, s, s.k_out));
  IntExprPtr n = call.index(), ci = call.index(), o = call.index();
  IntExprPtr g = s.groups > 1 ? call.index() : nullptr;
  IntExprPtr out_per_group = se::floordiv(s.k_out, se::lit(s.groups));
  std::vector<IntExprPtr> x, k, in_sp, out_sizes;
  for (size_t a = 0; a < s.spatial; ++a) {
    x.push_back(call.index());
    k.push_back(call.index());
    AxisGeometry geo = forward_axis(s.attrs, a, s.in_sizes[a], s.k_sizes[a]);
    out_sizes.push_back(geo.out);
    in_sp.push_back(se::sub(se::add(se::mul(se::lit(s.attrs.strides[a]), x[a]),
                                    se::mul(se::lit(s.attrs.dilations[a]), k[a])),
                            geo.pad_lo));
  }
  std::vector<Constraint> constraints;
  if (g) {
    constraints.push_back({o, out_per_group});
    constraints.push_back({g, se::lit(s.groups)});
  }
  IntExprPtr co = grouped(g, out_per_group, o);
  Access in{call.operand(0), s.layout.place(n, in_sp, grouped(g, s.k_in, ci))};
  Access ker{call.operand(1), s.kernel_access(k, ci, co)};
  ValueId r = call.contract(ir::AggOp::kSum, ir::CombOp::kMul, s.layout.place(n, x, co),
                            s.layout.place(s.batch, out_sizes, s.k_out), {in, ker}, constraints,
                            bias);
  return call.finish(r);
}

}  // namespace

std::vector<OpDef> conv_ops() {
  std::vector<OpDef> ops{{"conv", {"input", "kernel", "bias"}, 2, conv}};
  for (OpDef& d : conv_transpose_ops()) ops.push_back(std::move(d));
  return ops;
}

}  // namespace plaidml::oplib
