#include "core/oplib/conv_geometry.h"

#include "core/ir/printer.h"

namespace plaidml::oplib {

Expected<std::vector<int64_t>> read_spatial_list(OpCall& call, std::string_view name,
                                                 size_t spatial, int64_t min,
                                                 std::optional<std::vector<int64_t>> fallback) {
  PLAIDML_ASSIGN(std::vector<int64_t> v, call.get_ints(name, std::move(fallback)));
  if (v.size() != spatial) {
    return call.error(StatusCode::kInvalidArgument,
                      "attribute '{}' must have {} entr{} (one per spatial axis), got {}", name,
                      spatial, spatial == 1 ? "y" : "ies", v.size());
  }
  for (int64_t x : v) {
    if (x < min) {
      return call.error(StatusCode::kInvalidArgument, "attribute '{}' must be {} or more, got {}",
                        name, min, x);
    }
  }
  return v;
}

Expected<SpatialAttrs> read_spatial_attrs(OpCall& call, size_t spatial,
                                          const std::vector<int64_t>& default_strides,
                                          bool with_dilations) {
  SpatialAttrs a;
  PLAIDML_ASSIGN(a.strides, read_spatial_list(call, "strides", spatial, 1, default_strides));
  a.dilations.assign(spatial, 1);
  if (with_dilations) {
    PLAIDML_ASSIGN(a.dilations, read_spatial_list(call, "dilations", spatial, 1, a.dilations));
  }
  PLAIDML_ASSIGN(a.padding, call.get_string("padding", "valid",
                                            {"valid", "same_upper", "same_lower", "explicit"}));
  if (a.padding == "explicit") {
    PLAIDML_ASSIGN(a.pads, read_spatial_list(call, "pads", 2 * spatial, 0, std::nullopt));
  } else if (call.has_attr("pads")) {
    (void)call.get_ints("pads", std::nullopt);  // mark it read: the error below explains it
    return call.error(StatusCode::kInvalidArgument,
                      "attribute 'pads' is only allowed with padding 'explicit', not '{}'",
                      a.padding);
  }
  PLAIDML_ASSIGN(std::string layout,
                 call.get_string("layout", "channels_last", {"channels_last", "channels_first"}));
  a.channels_first = layout == "channels_first";
  return a;
}

namespace {

IntExprPtr lit(int64_t v) { return se::lit(v); }

IntExprPtr extent(const SpatialAttrs& a, size_t axis, IntExprPtr window) {
  // (window - 1) * dilation + 1
  if (a.dilations[axis] == 1) return window;
  return se::add(se::mul(se::sub(std::move(window), lit(1)), lit(a.dilations[axis])), lit(1));
}

}  // namespace

IntExprPtr same_pad_lo(const SpatialAttrs& a, size_t axis, IntExprPtr in, IntExprPtr out,
                       IntExprPtr window) {
  IntExprPtr s = lit(a.strides[axis]);
  IntExprPtr total = se::max(
      lit(0), se::sub(se::add(se::mul(se::sub(std::move(out), lit(1)), s), extent(a, axis, window)),
                      std::move(in)));
  if (a.padding == "same_lower") total = se::add(total, lit(1));
  return se::floordiv(total, lit(2));
}

AxisGeometry forward_axis(const SpatialAttrs& a, size_t axis, IntExprPtr in, IntExprPtr window) {
  IntExprPtr s = lit(a.strides[axis]);
  if (a.padding == "same_upper" || a.padding == "same_lower") {
    IntExprPtr out = se::floordiv(se::add(in, lit(a.strides[axis] - 1)), s);
    return {out, same_pad_lo(a, axis, in, out, window)};
  }
  IntExprPtr lo = lit(0);
  IntExprPtr padded = in;
  if (a.padding == "explicit") {
    size_t spatial = a.strides.size();
    lo = lit(a.pads[axis]);
    padded = se::add(in, lit(a.pads[axis] + a.pads[spatial + axis]));
  }
  IntExprPtr span = se::sub(padded, extent(a, axis, window));
  IntExprPtr out =
      a.strides[axis] == 1 ? se::add(span, lit(1)) : se::add(se::floordiv(span, s), lit(1));
  return {out, lo};
}

std::vector<IntExprPtr> Layout::place(IntExprPtr n, const std::vector<IntExprPtr>& spatial,
                                      IntExprPtr c) const {
  std::vector<IntExprPtr> out{std::move(n)};
  if (channels_first) out.push_back(c);
  for (const auto& x : spatial) out.push_back(x);
  if (!channels_first) out.push_back(c);
  return out;
}

std::string dims_string(const SymbolicDims& dims) {
  std::string out = "[";
  for (size_t k = 0; k < dims.size(); ++k) {
    if (k > 0) out += ", ";
    out += ir::print_int_expr(*dims[k]);
  }
  return out + "]";
}

}  // namespace plaidml::oplib

namespace plaidml::oplib {

std::vector<IntExprPtr> ConvSetup::kernel_access(const std::vector<IntExprPtr>& k, IntExprPtr in,
                                                 IntExprPtr out) const {
  std::vector<IntExprPtr> idx;
  if (oihw) idx = {out, in};
  idx.insert(idx.end(), k.begin(), k.end());
  if (!oihw) idx.insert(idx.end(), {in, out});
  return idx;
}

Expected<ConvSetup> read_conv(OpCall& call) {
  ConvSetup s;
  PLAIDML_ASSIGN(s.input, call.dims(0));
  size_t rank = s.input.size();
  if (rank < 3 || rank > 5) {
    return call.error(StatusCode::kTypeError,
                      "argument 'input' must have rank 3, 4 or 5 (batch, channels and 1 to 3 "
                      "spatial axes), but it has rank {}",
                      rank);
  }
  s.spatial = rank - 2;
  PLAIDML_ASSIGN(s.kernel, call.dims_of_rank(1, rank));
  PLAIDML_ASSIGN(s.attrs,
                 read_spatial_attrs(call, s.spatial, std::vector<int64_t>(s.spatial, 1), true));
  PLAIDML_ASSIGN(s.groups, call.get_int("groups", 1));
  if (s.groups < 1) {
    return call.error(StatusCode::kInvalidArgument, "attribute 'groups' must be 1 or more, got {}",
                      s.groups);
  }
  PLAIDML_ASSIGN(std::string kl, call.get_string("kernel_layout", "HWIO", {"HWIO", "OIHW"}));
  s.oihw = kl == "OIHW";
  s.layout = Layout{rank, s.attrs.channels_first};
  s.batch = s.input[0];
  s.channels = s.input[s.layout.channel_axis()];
  for (size_t a = 0; a < s.spatial; ++a) {
    s.in_sizes.push_back(s.input[s.layout.spatial_axis(a)]);
    s.k_sizes.push_back(s.kernel[s.oihw ? 2 + a : a]);
  }
  s.k_in = s.kernel[s.oihw ? 1 : rank - 2];
  s.k_out = s.kernel[s.oihw ? 0 : rank - 1];
  return s;
}

IntExprPtr grouped(const IntExprPtr& g, const IntExprPtr& per_group, const IntExprPtr& i) {
  if (!g) return i;
  return se::add(se::mul(g, per_group), i);
}

Expected<std::optional<ValueId>> bias_default(OpCall& call, const ConvSetup& s,
                                              const IntExprPtr& channels) {
  if (!call.has_operand(2)) return std::optional<ValueId>();
  PLAIDML_ASSIGN(SymbolicDims db, call.dims_of_rank(2, 1));
  PLAIDML_TRY(call.require(ir::AssertOp::kEq, db[0], channels,
                           "argument 'bias' has {0} entries, but the result has {1} channels",
                           {db[0], channels}));
  if (!s.layout.channels_first) return std::optional<ValueId>(call.operand(2));
  // [C] -> [C, 1, ...]: one spatial axis of size 1 per spatial axis.
  IntExprPtr c = call.index();
  std::vector<IntExprPtr> idx{c}, sizes{db[0]};
  for (size_t a = 0; a < s.spatial; ++a) {
    idx.push_back(se::lit(0));
    sizes.push_back(se::lit(1));
  }
  return std::optional<ValueId>(call.contract(ir::AggOp::kAssign, ir::CombOp::kNone, idx, sizes,
                                              {Access{call.operand(2), {c}}}));
}

}  // namespace plaidml::oplib

namespace plaidml::oplib {

Status check_channels(OpCall& call, const ConvSetup& s, const IntExprPtr& channels,
                      const IntExprPtr& per_group, const IntExprPtr& divisible,
                      std::string_view divisible_what) {
  IntExprPtr want = se::mul(se::lit(s.groups), per_group);
  std::vector<IntExprPtr> args{channels};
  std::string kernel = dims_placeholder(s.kernel, &args);
  size_t k = args.size();
  args.insert(args.end(), {per_group, want});
  PLAIDML_TRY(call.require(ir::AssertOp::kEq, channels, want,
                           fmt::format("argument 'input' has {{0}} channels, but the kernel {} "
                                       "expects groups ({}) * {{{}}} = {{{}}}",
                                       kernel, s.groups, k, k + 1),
                           std::move(args)));
  return call.require(ir::AssertOp::kMultiple, divisible, se::lit(s.groups),
                      fmt::format("the kernel's {} ({{0}}) is not a multiple of groups ({})",
                                  divisible_what, s.groups),
                      {divisible});
}

}  // namespace plaidml::oplib
