// conv_transpose: the adjoint of conv (its gradient with respect to the input) for the same
// attributes and the same kernel tensor, as one contraction whose output index is affine:
// O[n, stride*x + dilation*k - pad_lo, co] += I[n, x, ci] * K[k, co, ci].
#include "core/ir/printer.h"
#include "core/oplib/conv_geometry.h"

namespace plaidml::oplib {

namespace {

// Output size and low pad of one spatial axis: the forward conv's input size and pad.
AxisGeometry transpose_axis(const ConvSetup& s, size_t a, int64_t out_pad) {
  const SpatialAttrs& at = s.attrs;
  IntExprPtr in = s.in_sizes[a], k = s.k_sizes[a];
  if (at.padding == "same_upper" || at.padding == "same_lower") {
    IntExprPtr out = se::add(se::mul(in, se::lit(at.strides[a])), se::lit(out_pad));
    return {out, same_pad_lo(at, a, out, in, k)};
  }
  int64_t lo = 0, hi = 0;
  if (at.padding == "explicit") {
    lo = at.pads[a];
    hi = at.pads[s.spatial + a];
  }
  // (in - 1) * stride + (k - 1) * dilation + 1 - lo - hi + output_padding
  IntExprPtr out = se::add(se::add(se::mul(se::sub(in, se::lit(1)), se::lit(at.strides[a])),
                                   se::mul(se::sub(k, se::lit(1)), se::lit(at.dilations[a]))),
                           se::lit(1 - lo - hi + out_pad));
  return {out, se::lit(lo)};
}

Expected<std::vector<int64_t>> read_output_padding(OpCall& call, const ConvSetup& s) {
  PLAIDML_ASSIGN(std::vector<int64_t> op, read_spatial_list(call, "output_padding", s.spatial, 0,
                                                            std::vector<int64_t>(s.spatial, 0)));
  for (size_t a = 0; a < s.spatial; ++a) {
    if (op[a] >= std::max(s.attrs.strides[a], s.attrs.dilations[a])) {
      return call.error(StatusCode::kInvalidArgument,
                        "attribute 'output_padding' must be less than the stride or the dilation "
                        "of its axis, got {} on axis {} (stride {}, dilation {})",
                        op[a], a, s.attrs.strides[a], s.attrs.dilations[a]);
    }
  }
  return op;
}

Expected<ValueId> conv_transpose(OpCall& call) {
  PLAIDML_ASSIGN(ConvSetup s, read_conv(call));
  PLAIDML_ASSIGN(std::vector<int64_t> out_pad, read_output_padding(call, s));
  // The kernel's O is this op's input channels, its I (per group) the output channels.
  PLAIDML_TRY(check_channels(call, s, s.channels, se::floordiv(s.k_out, se::lit(s.groups)), s.k_out,
                             "input channels"));
  IntExprPtr out_channels = se::mul(se::lit(s.groups), s.k_in);
  PLAIDML_ASSIGN(std::optional<ValueId> bias, bias_default(call, s, out_channels));
  IntExprPtr n = call.index(), co = call.index(), i = call.index();
  IntExprPtr g = s.groups > 1 ? call.index() : nullptr;
  IntExprPtr in_per_group = se::floordiv(s.k_out, se::lit(s.groups));
  std::vector<IntExprPtr> x, k, out_sp, out_sizes;
  for (size_t a = 0; a < s.spatial; ++a) {
    x.push_back(call.index());
    k.push_back(call.index());
    AxisGeometry geo = transpose_axis(s, a, out_pad[a]);
    out_sizes.push_back(geo.out);
    out_sp.push_back(se::sub(se::add(se::mul(se::lit(s.attrs.strides[a]), x[a]),
                                     se::mul(se::lit(s.attrs.dilations[a]), k[a])),
                             geo.pad_lo));
  }
  std::vector<Constraint> constraints;
  if (g) {
    constraints.push_back({i, in_per_group});
    constraints.push_back({g, se::lit(s.groups)});
  }
  IntExprPtr ci = grouped(g, in_per_group, i);
  Access in{call.operand(0), s.layout.place(n, x, ci)};
  Access ker{call.operand(1), s.kernel_access(k, co, ci)};
  ValueId r = call.contract(ir::AggOp::kSum, ir::CombOp::kMul,
                            s.layout.place(n, out_sp, grouped(g, s.k_in, co)),
                            s.layout.place(s.batch, out_sizes, out_channels), {in, ker},
                            constraints, bias);
  return call.finish(r);
}

}  // namespace

std::vector<OpDef> conv_transpose_ops() {
  return {{"conv_transpose", {"input", "kernel", "bias"}, 2, conv_transpose}};
}

}  // namespace plaidml::oplib
