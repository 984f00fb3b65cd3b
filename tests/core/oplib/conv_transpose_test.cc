// conv_transpose against a naive scatter loop (the adjoint of the conv loop): every padding
// mode, strides, dilations, output_padding, groups, both layouts and kernel layouts, 1-D to 3-D;
// and its errors. The kernel is the forward conv's: HWIO = [spatial..., out/groups, in] here.
#include <numeric>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

struct TCase {
  int64_t n = 1, cin = 2, cout = 3, groups = 1;  // cin: this op's input channels
  Dims in, k;
  Dims strides, dilations;
  std::string padding = "valid";
  Dims pads, output_padding;
};

// Input [N, in..., Cin], kernel [k..., Cout/G, Cin] -> output [N, out..., Cout].
std::vector<double> ref_transpose(const TCase& t, const std::vector<double>& x,
                                  const std::vector<double>& w, Dims* out_dims) {
  size_t sp = t.in.size();
  Dims out, lo;
  for (size_t a = 0; a < sp; ++a) {
    int64_t s = t.strides[a], eff = (t.k[a] - 1) * t.dilations[a] + 1, op = t.output_padding[a];
    if (t.padding == "same_upper" || t.padding == "same_lower") {
      int64_t o = t.in[a] * s + op;  // the forward conv's input size
      int64_t total = std::max<int64_t>(0, (t.in[a] - 1) * s + eff - o);
      out.push_back(o);
      lo.push_back(t.padding == "same_upper" ? total / 2 : (total + 1) / 2);
    } else {
      int64_t l = t.padding == "explicit" ? t.pads[a] : 0;
      int64_t h = t.padding == "explicit" ? t.pads[sp + a] : 0;
      out.push_back((t.in[a] - 1) * s + eff - l - h + op);
      lo.push_back(l);
    }
  }
  int64_t og = t.cout / t.groups, ig = t.cin / t.groups;
  std::vector<double> r(t.n * count(out) * t.cout, 0.0);
  for (int64_t n = 0; n < t.n; ++n) {
    for (int64_t p = 0; p < count(t.in); ++p) {
      Dims xp = unflatten(p, t.in);
      for (int64_t q = 0; q < count(t.k); ++q) {
        Dims kq = unflatten(q, t.k);
        int64_t pos = 0;
        bool inside = true;
        for (size_t a = 0; a < sp; ++a) {
          int64_t o = t.strides[a] * xp[a] + t.dilations[a] * kq[a] - lo[a];
          inside = inside && o >= 0 && o < out[a];
          pos = pos * out[a] + o;
        }
        if (!inside) continue;
        for (int64_t ci = 0; ci < t.cin; ++ci) {
          int64_t g = ci / ig;
          for (int64_t c = 0; c < og; ++c) {
            r[(n * count(out) + pos) * t.cout + g * og + c] +=
                x[(n * count(t.in) + p) * t.cin + ci] * w[(q * og + c) * t.cin + ci];
          }
        }
      }
    }
  }
  *out_dims = {t.n};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  out_dims->push_back(t.cout);
  return r;
}

void check_transpose(TCase t, bool channels_first = false, bool oihw = false, bool bias = false) {
  size_t sp = t.in.size();
  if (t.strides.empty()) t.strides.assign(sp, 1);
  if (t.dilations.empty()) t.dilations.assign(sp, 1);
  if (t.output_padding.empty()) t.output_padding.assign(sp, 0);
  Dims xd{t.n}, wd = t.k;
  xd.insert(xd.end(), t.in.begin(), t.in.end());
  xd.push_back(t.cin);
  wd.push_back(t.cout / t.groups);
  wd.push_back(t.cin);
  auto x = seq(count(xd), 0.5, -2), w = seq(count(wd), 0.25, -1), b = seq(t.cout, 1.0, 0.5);
  Dims od;
  auto expect = ref_transpose(t, x, w, &od);
  if (bias) {
    for (size_t k = 0; k < expect.size(); ++k) expect[k] += b[k % t.cout];
  }
  Attrs attrs{{"strides", t.strides},
              {"dilations", t.dilations},
              {"padding", t.padding},
              {"groups", t.groups},
              {"output_padding", t.output_padding}};
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
  check_tensor(run_ok("conv_transpose", inputs, attrs), f32(od, expect));
}

}  // namespace

TEST_CASE("conv_transpose: 2-D, every padding mode, strides, dilations, output_padding") {
  for (std::string pad : {"valid", "same_upper", "same_lower", "explicit"}) {
    check_transpose({.in = {3, 2}, .k = {2, 3}, .padding = pad, .pads = {1, 0, 0, 1}});
    check_transpose({.n = 2,
                     .cin = 1,
                     .cout = 2,
                     .in = {2, 3},
                     .k = {3, 2},
                     .strides = {2, 3},
                     .padding = pad,
                     .pads = {1, 1, 0, 2},
                     .output_padding = {1, 2}});
    check_transpose({.cin = 2,
                     .cout = 1,
                     .in = {3, 3},
                     .k = {2, 2},
                     .strides = {1, 2},
                     .dilations = {2, 1},
                     .padding = pad,
                     .pads = {0, 1, 1, 0}});
  }
}

TEST_CASE("conv_transpose: layouts, kernel layouts, bias, groups") {
  TCase t{.n = 2,
          .cin = 2,
          .cout = 3,
          .in = {2, 3},
          .k = {2, 2},
          .strides = {2, 1},
          .padding = "same_upper"};
  for (bool cf : {false, true}) {
    for (bool oihw : {false, true}) check_transpose(t, cf, oihw, cf == oihw);
  }
  check_transpose({.cin = 4, .cout = 6, .groups = 2, .in = {2, 3}, .k = {2, 2}, .strides = {2, 2}});
  check_transpose({.cin = 4, .cout = 2, .groups = 2, .in = {3, 2}, .k = {1, 2}}, true, true, true);
  check_transpose(
      {.cin = 3, .cout = 3, .groups = 3, .in = {3, 3}, .k = {2, 2}, .padding = "same_lower"});
}

TEST_CASE("conv_transpose: 1-D, 3-D, size 1, f64") {
  check_transpose({.n = 2,
                   .cin = 3,
                   .cout = 2,
                   .in = {4},
                   .k = {3},
                   .strides = {2},
                   .dilations = {2},
                   .padding = "explicit",
                   .pads = {1, 2},
                   .output_padding = {1}});
  check_transpose({.cin = 2,
                   .cout = 2,
                   .in = {2, 3, 2},
                   .k = {2, 2, 1},
                   .strides = {2, 1, 2},
                   .padding = "same_upper"},
                  true, true, true);
  check_transpose({.cin = 1, .cout = 1, .in = {1, 1}, .k = {1, 1}});
  auto out =
      run_ok("conv_transpose", {{"I", f64({1, 2, 1}, {1, 2})}, {"K", f64({2, 1, 1}, {1, -1})}});
  check_tensor(out, f64({1, 3, 1}, {1, 1, -2}));
}

TEST_CASE("conv_transpose: errors") {
  auto i4 = f32({1, 3, 3, 2}, seq(18, 1, 0)), k4 = f32({2, 2, 2, 2}, seq(16, 1, 0));
  auto error = [&](const HostTensor& k, const Attrs& attrs, StatusCode code,
                   const std::string& msg) {
    check_op_error("conv_transpose", {{"I", i4}, {"K", k}}, attrs, code, msg);
  };
  error(k4, {{"output_padding", Dims{1}}}, StatusCode::kInvalidArgument,
        "conv_transpose: attribute 'output_padding' must have 2 entries (one per spatial axis), "
        "got 1");
  error(k4, {{"output_padding", Dims{0, -1}}}, StatusCode::kInvalidArgument,
        "conv_transpose: attribute 'output_padding' must be 0 or more, got -1");
  error(k4, {{"output_padding", Dims{0, 2}}, {"strides", Dims{1, 2}}}, StatusCode::kInvalidArgument,
        "conv_transpose: attribute 'output_padding' must be less than the stride or the dilation "
        "of its axis, got 2 on axis 1 (stride 2, dilation 1)");
  error(k4, {{"groups", int64_t{-1}}}, StatusCode::kInvalidArgument,
        "conv_transpose: attribute 'groups' must be 1 or more, got -1");
  error(f32({2, 2, 2}, seq(8, 1, 0)), {}, StatusCode::kTypeError,
        "conv_transpose: argument 'kernel' must have rank 4, but it has rank 3");
  check_op_error("conv_transpose", {{"I", f32({2, 2}, seq(4, 1, 0))}, {"K", k4}}, {},
                 StatusCode::kTypeError,
                 "conv_transpose: argument 'input' must have rank 3, 4 or 5 (batch, channels and "
                 "1 to 3 spatial axes), but it has rank 2");
  // The kernel's O must be the input's channels; checked at bind, with the op's message.
  error(f32({2, 2, 2, 3}, seq(24, 1, 0)), {}, StatusCode::kTypeError,
        "2:3: conv_transpose: argument 'input' has 2 channels, but the kernel [2, 2, 2, 3] "
        "expects groups (1) * 3 = 3");
  error(f32({2, 2, 1, 3}, seq(12, 1, 0)), {{"groups", int64_t{2}}}, StatusCode::kTypeError,
        "3:3: conv_transpose: the kernel's input channels (3) is not a multiple of groups (2)");
  check_op_error("conv_transpose", {{"I", i4}, {"K", k4}, {"B", f32({3}, {1, 2, 3})}}, {},
                 StatusCode::kTypeError,
                 "3:3: conv_transpose: argument 'bias' has 3 entries, but the result has 2 "
                 "channels");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

// The defining property, checked on the ops themselves: <conv(X, K), Y> == <X, conv_transpose(Y,
// K)> for the same attributes, X having the size conv_transpose gives.
TEST_CASE("conv_transpose: the adjoint of conv") {
  struct Case {
    Attrs attrs;
    Dims y, k, x;  // [N, spatial..., C] and HWIO, channels_last
  };
  std::vector<Case> cases{
      {{{"strides", Dims{2, 1}}, {"padding", std::string("same_upper")}},
       {1, 2, 3, 2},
       {3, 2, 3, 2},
       {1, 4, 3, 3}},
      {{{"strides", Dims{3, 2}}, {"dilations", Dims{1, 2}}, {"padding", std::string("same_lower")}},
       {1, 2, 2, 2},
       {2, 2, 2, 2},
       {1, 6, 4, 2}},
      {{{"strides", Dims{2, 2}},
        {"padding", std::string("explicit")},
        {"pads", Dims{1, 0, 0, 1}},
        {"output_padding", Dims{1, 0}}},
       {1, 2, 3, 2},
       {3, 2, 2, 2},
       {1, 5, 5, 2}},
      {{{"groups", int64_t{2}}, {"strides", Dims{2, 1}}}, {1, 2, 2, 4}, {2, 2, 1, 4}, {1, 4, 3, 2}},
  };
  for (const Case& c : cases) {
    auto y = seq(count(c.y), 0.5, -1), k = seq(count(c.k), 0.25, -0.5),
         x = seq(count(c.x), 0.75, -2);
    Attrs conv_attrs = c.attrs;
    conv_attrs.erase("output_padding");
    HostTensor cx = run_ok("conv", {{"X", f64(c.x, x)}, {"K", f64(c.k, k)}}, conv_attrs);
    HostTensor ty = run_ok("conv_transpose", {{"Y", f64(c.y, y)}, {"K", f64(c.k, k)}}, c.attrs);
    REQUIRE(cx.shape.dims == c.y);
    REQUIRE(ty.shape.dims == c.x);
    std::vector<double> a = to_doubles(cx), b = to_doubles(ty);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += a[i] * y[i];
    for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * b[i];
    CHECK(lhs == doctest::Approx(rhs).epsilon(1e-12));
  }
}

}  // namespace plaidml::oplib::test
