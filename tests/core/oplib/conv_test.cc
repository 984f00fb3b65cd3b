// conv against a naive loop over plain arrays, for every option: strides, dilations, each
// padding mode, groups, depthwise, both layouts, both kernel layouts, 1-D, 2-D and 3-D; and its
// errors. Data is made in the canonical layouts (N, spatial..., C) and (spatial..., I, O), then
// permuted into the layouts under test.
#include <numeric>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

struct ConvCase {
  int64_t n = 1, c = 2, cout = 3, groups = 1;
  Dims in, k;  // spatial sizes
  Dims strides, dilations;
  std::string padding = "valid";
  Dims pads;
};

struct Axis {
  int64_t out, lo;
};

Axis axis_of(const ConvCase& t, size_t a) {
  int64_t s = t.strides[a], eff = (t.k[a] - 1) * t.dilations[a] + 1, in = t.in[a];
  if (t.padding == "same_upper" || t.padding == "same_lower") {
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
    return {out, t.padding == "same_upper" ? total / 2 : (total + 1) / 2};
  }
  int64_t lo = t.padding == "explicit" ? t.pads[a] : 0;
  int64_t hi = t.padding == "explicit" ? t.pads[t.in.size() + a] : 0;
  return {(in + lo + hi - eff) / s + 1, lo};
}

// Input [N, spatial..., C], kernel [spatial..., C/G, Cout] -> output [N, out..., Cout].
std::vector<double> ref_conv(const ConvCase& t, const std::vector<double>& x,
                             const std::vector<double>& w, Dims* out_dims) {
  size_t sp = t.in.size();
  Dims out;
  std::vector<Axis> ax;
  for (size_t a = 0; a < sp; ++a) ax.push_back(axis_of(t, a));
  for (auto& a : ax) out.push_back(a.out);
  int64_t cg = t.c / t.groups, og = t.cout / t.groups;
  std::vector<double> r;
  for (int64_t n = 0; n < t.n; ++n) {
    for (int64_t p = 0; p < count(out); ++p) {
      for (int64_t co = 0; co < t.cout; ++co) {
        double sum = 0;
        for (int64_t q = 0; q < count(t.k); ++q) {
          int64_t xi = 0, ki = q, pi = p, wi = 0;
          bool inside = true;
          Dims kk(sp), pp(sp);
          for (size_t a = sp; a-- > 0;) {
            kk[a] = ki % t.k[a], ki /= t.k[a];
            pp[a] = pi % out[a], pi /= out[a];
          }
          for (size_t a = 0; a < sp; ++a) {
            int64_t pos = t.strides[a] * pp[a] + t.dilations[a] * kk[a] - ax[a].lo;
            inside = inside && pos >= 0 && pos < t.in[a];
            xi = xi * t.in[a] + pos;
            wi = wi * t.k[a] + kk[a];
          }
          if (!inside) continue;
          for (int64_t ci = 0; ci < cg; ++ci) {
            int64_t g = co / og;
            sum += x[(n * count(t.in) + xi) * t.c + g * cg + ci] * w[(wi * cg + ci) * t.cout + co];
          }
        }
        r.push_back(sum);
      }
    }
  }
  *out_dims = {t.n};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  out_dims->push_back(t.cout);
  return r;
}

void check_conv(ConvCase t, bool channels_first = false, bool oihw = false, bool bias = false) {
  size_t sp = t.in.size();
  if (t.strides.empty()) t.strides.assign(sp, 1);
  if (t.dilations.empty()) t.dilations.assign(sp, 1);
  Dims xd{t.n}, wd = t.k;
  xd.insert(xd.end(), t.in.begin(), t.in.end());
  xd.push_back(t.c);
  wd.push_back(t.c / t.groups);
  wd.push_back(t.cout);
  auto x = seq(count(xd), 0.5, -2), w = seq(count(wd), 0.25, -1), b = seq(t.cout, 1.0, 0.5);
  Dims od;
  auto expect = ref_conv(t, x, w, &od);
  if (bias) {
    for (size_t k = 0; k < expect.size(); ++k) expect[k] += b[k % t.cout];
  }
  Attrs attrs{{"strides", t.strides},
              {"dilations", t.dilations},
              {"padding", t.padding},
              {"groups", t.groups}};
  if (t.padding == "explicit") attrs["pads"] = t.pads;
  if (channels_first) {
    attrs["layout"] = std::string("channels_first");
    x = permute(x, xd, to_channels_first(xd.size()), &xd);
    expect = permute(expect, od, to_channels_first(od.size()), &od);
  }
  if (oihw) {
    attrs["kernel_layout"] = std::string("OIHW");
    w = permute(w, wd, to_oihw(wd.size()), &wd);
  }
  std::vector<Input> inputs{{"I", f32(xd, x)}, {"K", f32(wd, w)}};
  if (bias) inputs.push_back({"B", f32({t.cout}, b)});
  INFO("padding ", t.padding, " groups ", t.groups, " channels_first ", channels_first, " oihw ",
       oihw, " bias ", bias);
  check_tensor(run_ok("conv", inputs, attrs), f32(od, expect));
}

}  // namespace

TEST_CASE("conv: 2-D, every padding mode, strides and dilations") {
  for (std::string pad : {"valid", "same_upper", "same_lower", "explicit"}) {
    check_conv({.n = 1,
                .c = 2,
                .cout = 3,
                .in = {4, 5},
                .k = {2, 3},
                .padding = pad,
                .pads = {1, 0, 2, 1}});
    check_conv({.n = 2,
                .c = 1,
                .cout = 2,
                .in = {5, 4},
                .k = {2, 2},
                .strides = {2, 3},
                .padding = pad,
                .pads = {0, 1, 1, 2}});
    check_conv({.n = 1,
                .c = 2,
                .cout = 1,
                .in = {5, 6},
                .k = {2, 3},
                .strides = {1, 2},
                .dilations = {2, 1},
                .padding = pad,
                .pads = {2, 1, 0, 0}});
  }
}

TEST_CASE("conv: layouts, kernel layouts and bias") {
  ConvCase t{.n = 2,
             .c = 2,
             .cout = 3,
             .in = {3, 4},
             .k = {2, 2},
             .strides = {1, 2},
             .padding = "same_upper"};
  for (bool cf : {false, true}) {
    for (bool oihw : {false, true}) {
      check_conv(t, cf, oihw, false);
      check_conv(t, cf, oihw, true);
    }
  }
}

TEST_CASE("conv: groups and depthwise") {
  check_conv({.n = 1, .c = 4, .cout = 6, .groups = 2, .in = {3, 3}, .k = {2, 2}});
  check_conv(
      {.n = 1, .c = 4, .cout = 2, .groups = 2, .in = {3, 4}, .k = {1, 2}, .padding = "same_lower"},
      true, true, true);
  // Depthwise: groups == channels, multiplier 2.
  check_conv({.n = 1,
              .c = 3,
              .cout = 6,
              .groups = 3,
              .in = {4, 3},
              .k = {3, 2},
              .strides = {2, 1},
              .padding = "same_upper"});
  check_conv({.n = 2, .c = 3, .cout = 3, .groups = 3, .in = {4, 3}, .k = {3, 2}}, true, false);
}

TEST_CASE("conv: 1-D and 3-D") {
  check_conv({.n = 2,
              .c = 3,
              .cout = 2,
              .in = {7},
              .k = {3},
              .strides = {2},
              .dilations = {2},
              .padding = "explicit",
              .pads = {2, 1}});
  check_conv({.n = 1, .c = 2, .cout = 2, .groups = 2, .in = {5}, .k = {2}}, true, true, true);
  check_conv({.n = 1,
              .c = 2,
              .cout = 2,
              .in = {3, 4, 3},
              .k = {2, 2, 2},
              .strides = {1, 2, 1},
              .padding = "same_upper"});
  check_conv({.n = 1,
              .c = 1,
              .cout = 2,
              .in = {3, 3, 2},
              .k = {2, 1, 2},
              .padding = "explicit",
              .pads = {1, 0, 0, 0, 1, 1}},
             true, true, true);
}

TEST_CASE("conv: size-1 and f64") {
  check_conv({.n = 1, .c = 1, .cout = 1, .in = {1, 1}, .k = {1, 1}});
  check_conv({.n = 1, .c = 1, .cout = 1, .in = {1}, .k = {3}, .padding = "same_lower"});
  auto out = run_ok("conv", {{"I", f64({1, 3, 1}, {1, 2, 3})}, {"K", f64({2, 1, 1}, {1, -1})}});
  check_tensor(out, f64({1, 2, 1}, {-1, -1}));
}

TEST_CASE("conv: errors of ranks and attributes") {
  auto i4 = f32({1, 3, 3, 2}, seq(18, 1, 0)), k4 = f32({2, 2, 2, 2}, seq(16, 1, 0));
  auto conv_error = [&](const HostTensor& in, const HostTensor& k, const Attrs& attrs,
                        StatusCode code, const std::string& msg) {
    check_op_error("conv", {{"I", in}, {"K", k}}, attrs, code, msg);
  };
  conv_error(f32({3, 2}, seq(6, 1, 0)), k4, {}, StatusCode::kTypeError,
             "conv: argument 'input' must have rank 3, 4 or 5 (batch, channels and 1 to 3 spatial "
             "axes), but it has rank 2");
  conv_error(i4, f32({2, 2, 4}, seq(16, 1, 0)), {}, StatusCode::kTypeError,
             "conv: argument 'kernel' must have rank 4, but it has rank 3");
  conv_error(i4, k4, {{"strides", Dims{1}}}, StatusCode::kInvalidArgument,
             "conv: attribute 'strides' must have 2 entries (one per spatial axis), got 1");
  conv_error(i4, k4, {{"strides", Dims{1, 0}}}, StatusCode::kInvalidArgument,
             "conv: attribute 'strides' must be 1 or more, got 0");
  conv_error(i4, k4, {{"dilations", Dims{0, 1}}}, StatusCode::kInvalidArgument,
             "conv: attribute 'dilations' must be 1 or more, got 0");
  conv_error(i4, k4, {{"padding", std::string("same")}}, StatusCode::kInvalidArgument,
             "conv: attribute 'padding' must be valid, same_upper, same_lower or explicit, got "
             "'same'");
  conv_error(i4, k4, {{"padding", std::string("explicit")}}, StatusCode::kInvalidArgument,
             "conv: attribute 'pads' (a list of integers) is required");
  conv_error(i4, k4, {{"padding", std::string("explicit")}, {"pads", Dims{1, 1}}},
             StatusCode::kInvalidArgument,
             "conv: attribute 'pads' must have 4 entries (one per spatial axis), got 2");
  conv_error(i4, k4, {{"padding", std::string("explicit")}, {"pads", Dims{1, 1, -1, 0}}},
             StatusCode::kInvalidArgument, "conv: attribute 'pads' must be 0 or more, got -1");
  conv_error(i4, k4, {{"pads", Dims{1, 1, 1, 0}}}, StatusCode::kInvalidArgument,
             "conv: attribute 'pads' is only allowed with padding 'explicit', not 'valid'");
  conv_error(i4, k4, {{"groups", int64_t{0}}}, StatusCode::kInvalidArgument,
             "conv: attribute 'groups' must be 1 or more, got 0");
  conv_error(i4, k4, {{"layout", std::string("NHWC")}}, StatusCode::kInvalidArgument,
             "conv: attribute 'layout' must be channels_last or channels_first, got 'NHWC'");
  conv_error(i4, k4, {{"kernel_layout", std::string("HWOI")}}, StatusCode::kInvalidArgument,
             "conv: attribute 'kernel_layout' must be HWIO or OIHW, got 'HWOI'");
  conv_error(i4, k4, {{"output_padding", Dims{1, 1}}}, StatusCode::kInvalidArgument,
             "conv: unknown attribute 'output_padding'");
}

TEST_CASE("conv: errors of shapes") {
  auto i4 = f32({1, 3, 3, 2}, seq(18, 1, 0)), k4 = f32({2, 2, 2, 2}, seq(16, 1, 0));
  auto conv_error = [&](const HostTensor& in, const HostTensor& k, const Attrs& attrs,
                        StatusCode code, const std::string& msg) {
    check_op_error("conv", {{"I", in}, {"K", k}}, attrs, code, msg);
  };
  check_op_error("conv", {{"I", i4}, {"K", k4}, {"B", f32({2, 1}, {1, 2})}}, {},
                 StatusCode::kTypeError,
                 "conv: argument 'bias' must have rank 1, but it has rank 2");
  // Channel mismatches between differently named dims fail when the program is bound, with the
  // op's message (an assertion of the program) and the bound sizes.
  conv_error(i4, f32({2, 2, 3, 2}, seq(24, 1, 0)), {}, StatusCode::kTypeError,
             "2:3: conv: argument 'input' has 2 channels, but the kernel [2, 2, 3, 2] expects "
             "groups (1) * 3 = 3");
  conv_error(i4, f32({2, 2, 2, 2}, seq(16, 1, 0)), {{"groups", int64_t{2}}}, StatusCode::kTypeError,
             "2:3: conv: argument 'input' has 2 channels, but the kernel [2, 2, 2, 2] expects "
             "groups (2) * 2 = 4");
  conv_error(i4, f32({2, 2, 1, 3}, seq(12, 1, 0)), {{"groups", int64_t{2}}}, StatusCode::kTypeError,
             "3:3: conv: the kernel's output channels (3) is not a multiple of groups (2)");
  check_op_error("conv", {{"I", i4}, {"K", k4}, {"B", f32({1}, {1})}}, {}, StatusCode::kTypeError,
                 "3:3: conv: argument 'bias' has 1 entries, but the result has 2 channels");
  // A kernel larger than the input gives a negative size at bind.
  conv_error(f32({1, 1, 1, 2}, {1, 2}), f32({3, 3, 2, 1}, seq(18, 1, 0)), {},
             StatusCode::kTypeError,
             "3:3: contraction 'R': size -1 of output dimension 1 ('I_1 - K_0 + 1') is negative: "
             "sizes must be 0 or more");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

Status apply_literal(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                     const Attrs& attrs);  // linalg_test.cc

TEST_CASE("conv and conv_transpose: mismatches of literal dims are errors while building") {
  auto check = [](const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                  const Attrs& attrs, const std::string& message) {
    Status s = apply_literal(op, shapes, attrs);
    CHECK(s.code() == StatusCode::kTypeError);
    CHECK(s.message() == message);
  };
  CHECK(apply_literal("conv", {{1, 4, 4, 2}, {2, 2, 2, 3}, {3}}, {}).is_ok());
  check("conv", {{1, 4, 4, 2}, {2, 2, 3, 3}}, {},
        "conv: argument 'input' has 2 channels, but the kernel [2, 2, 3, 3] expects groups (1) * 3 "
        "= 3");
  check("conv", {{1, 4, 4, 4}, {2, 2, 2, 3}}, {{"groups", int64_t{2}}},
        "conv: the kernel's output channels (3) is not a multiple of groups (2)");
  check("conv", {{1, 4, 4, 2}, {2, 2, 2, 3}, {4}}, {},
        "conv: argument 'bias' has 4 entries, but the result has 3 channels");
  CHECK(apply_literal("conv_transpose", {{1, 4, 4, 3}, {2, 2, 2, 3}, {2}}, {}).is_ok());
  check("conv_transpose", {{1, 4, 4, 2}, {2, 2, 2, 3}}, {},
        "conv_transpose: argument 'input' has 2 channels, but the kernel [2, 2, 2, 3] expects "
        "groups (1) * 3 = 3");
  CHECK(apply_literal("conv_transpose", {{1, 4, 4, 3}, {2, 2, 2, 3}}, {{"groups", int64_t{3}}})
            .is_ok());
  check("conv_transpose", {{1, 4, 4, 2}, {2, 2, 2, 3}}, {{"groups", int64_t{2}}},
        "conv_transpose: the kernel's input channels (3) is not a multiple of groups (2)");
}

}  // namespace plaidml::oplib::test
