// max_pool, avg_pool (with and without padding in the average), global pools: against naive
// loops over plain arrays, both layouts, 1-D to 3-D; and their errors.
#include <limits>
#include <numeric>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

std::vector<double> seq(size_t n) {
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = -3.0 + 0.5 * static_cast<double>((k * 7) % 13);
  return v;
}

// [N, spatial..., C] <-> [N, C, spatial...].
std::vector<double> to_channels_first(const std::vector<double>& v, Dims* dims) {
  Dims d = *dims, od{d[0], d.back()};
  od.insert(od.end(), d.begin() + 1, d.end() - 1);
  int64_t n = d[0], c = d.back(), sp = count(d) / (n * c);
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < sp; ++p) {
      for (int64_t ch = 0; ch < c; ++ch) out[(i * c + ch) * sp + p] = v[(i * sp + p) * c + ch];
    }
  }
  *dims = od;
  return out;
}

struct PoolCase {
  int64_t n = 1, c = 2;
  Dims in, kernel, strides;
  std::string padding = "valid";
  Dims pads;
};

// kind: "max", "avg" (count_include_pad = 0) or "avg_pad" (= 1).
std::vector<double> ref_pool(const PoolCase& t, const std::string& kind,
                             const std::vector<double>& x, Dims* out_dims) {
  size_t sp = t.in.size();
  Dims out, lo;
  for (size_t a = 0; a < sp; ++a) {
    int64_t s = t.strides[a], k = t.kernel[a];
    if (t.padding == "same_upper" || t.padding == "same_lower") {
      int64_t o = (t.in[a] + s - 1) / s, total = std::max<int64_t>(0, (o - 1) * s + k - t.in[a]);
      out.push_back(o);
      lo.push_back(t.padding == "same_upper" ? total / 2 : (total + 1) / 2);
    } else {
      int64_t l = t.padding == "explicit" ? t.pads[a] : 0;
      int64_t h = t.padding == "explicit" ? t.pads[sp + a] : 0;
      out.push_back((t.in[a] + l + h - k) / s + 1);
      lo.push_back(l);
    }
  }
  std::vector<double> r;
  for (int64_t n = 0; n < t.n; ++n) {
    for (int64_t p = 0; p < count(out); ++p) {
      Dims op = unflatten(p, out);
      for (int64_t c = 0; c < t.c; ++c) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0, points = 0;
        for (int64_t q = 0; q < count(t.kernel); ++q) {
          Dims kq = unflatten(q, t.kernel);
          int64_t pos = 0;
          bool inside = true;
          for (size_t a = 0; a < sp; ++a) {
            int64_t i = t.strides[a] * op[a] + kq[a] - lo[a];
            inside = inside && i >= 0 && i < t.in[a];
            pos = pos * t.in[a] + i;
          }
          if (!inside) continue;
          double v = x[(n * count(t.in) + pos) * t.c + c];
          best = std::max(best, v);
          sum += v;
          points += 1;
        }
        if (kind == "max") r.push_back(best);
        if (kind == "avg") r.push_back(sum / points);
        if (kind == "avg_pad") r.push_back(sum / static_cast<double>(count(t.kernel)));
      }
    }
  }
  *out_dims = {t.n};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  out_dims->push_back(t.c);
  return r;
}

void check_pool(PoolCase t, const std::string& kind, bool channels_first = false) {
  bool default_strides = t.strides.empty();
  if (default_strides) t.strides = t.kernel;
  Dims xd{t.n};
  xd.insert(xd.end(), t.in.begin(), t.in.end());
  xd.push_back(t.c);
  auto x = seq(count(xd));
  Dims od;
  auto expect = ref_pool(t, kind, x, &od);
  Attrs attrs{{"kernel", t.kernel}, {"padding", t.padding}};
  if (!default_strides) attrs["strides"] = t.strides;
  if (t.padding == "explicit") attrs["pads"] = t.pads;
  if (kind == "avg_pad") attrs["count_include_pad"] = int64_t{1};
  if (channels_first) {
    attrs["layout"] = std::string("channels_first");
    x = to_channels_first(x, &xd);
    expect = to_channels_first(expect, &od);
  }
  INFO(kind, " padding ", t.padding, " channels_first ", channels_first);
  std::string op = kind == "max" ? "max_pool" : "avg_pool";
  check_tensor(run_ok(op, {{"I", f32(xd, x)}}, attrs), f32(od, expect));
}

}  // namespace

TEST_CASE("max_pool and avg_pool: 2-D, every padding mode, strides, both layouts") {
  for (std::string kind : {"max", "avg", "avg_pad"}) {
    for (std::string pad : {"valid", "same_upper", "same_lower", "explicit"}) {
      for (bool cf : {false, true}) {
        check_pool({.in = {5, 4}, .kernel = {2, 3}, .padding = pad, .pads = {1, 0, 1, 2}}, kind,
                   cf);
        check_pool({.n = 2,
                    .c = 1,
                    .in = {5, 5},
                    .kernel = {3, 2},
                    .strides = {2, 1},
                    .padding = pad,
                    .pads = {2, 1, 0, 1}},
                   kind, cf);
      }
    }
  }
}

TEST_CASE("max_pool and avg_pool: 1-D, 3-D, size 1, f64") {
  for (std::string kind : {"max", "avg", "avg_pad"}) {
    check_pool({.n = 2,
                .c = 3,
                .in = {7},
                .kernel = {3},
                .strides = {2},
                .padding = "explicit",
                .pads = {1, 2}},
               kind);
    check_pool(
        {.in = {3, 4, 3}, .kernel = {2, 2, 2}, .strides = {1, 2, 1}, .padding = "same_upper"}, kind,
        true);
    check_pool({.n = 1, .c = 1, .in = {1, 1}, .kernel = {1, 1}}, kind);
  }
  check_tensor(
      run_ok("avg_pool", {{"I", f64({1, 3, 1}, {1, 2, 4})}},
             {{"kernel", Dims{2}}, {"strides", Dims{1}}, {"padding", std::string("same_upper")}}),
      f64({1, 3, 1}, {1.5, 3, 4}));
}

TEST_CASE("global_avg_pool and global_max_pool: layouts and keepdims") {
  // [N=2, H=2, W=3, C=2] channels_last.
  Dims xd{2, 2, 3, 2};
  auto x = seq(count(xd));
  std::vector<double> avg, mx;
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 2; ++c) {
      double s = 0, m = -1e30;
      for (int64_t p = 0; p < 6; ++p) {
        s += x[(n * 6 + p) * 2 + c];
        m = std::max(m, x[(n * 6 + p) * 2 + c]);
      }
      avg.push_back(s / 6);
      mx.push_back(m);
    }
  }
  check_tensor(run_ok("global_avg_pool", {{"I", f32(xd, x)}}), f32({2, 2}, avg));
  check_tensor(run_ok("global_max_pool", {{"I", f32(xd, x)}}), f32({2, 2}, mx));
  check_tensor(run_ok("global_avg_pool", {{"I", f32(xd, x)}}, {{"keepdims", int64_t{1}}}),
               f32({2, 1, 1, 2}, avg));
  Dims cd = xd;
  auto xc = to_channels_first(x, &cd);
  Attrs cf{{"layout", std::string("channels_first")}};
  check_tensor(run_ok("global_avg_pool", {{"I", f32(cd, xc)}}, cf), f32({2, 2}, avg));
  cf["keepdims"] = int64_t{1};
  check_tensor(run_ok("global_max_pool", {{"I", f32(cd, xc)}}, cf), f32({2, 2, 1, 1}, mx));
  check_tensor(run_ok("global_avg_pool", {{"I", f64({1, 2, 1}, {1, 4})}}), f64({1, 1}, {2.5}));
}

TEST_CASE("pooling: errors") {
  auto x = f32({1, 4, 4, 1}, seq(16));
  auto pool_error = [&](const std::string& op, const HostTensor& in, const Attrs& attrs,
                        StatusCode code, const std::string& msg) {
    check_op_error(op, {{"I", in}}, attrs, code, msg);
  };
  pool_error("max_pool", x, {}, StatusCode::kInvalidArgument,
             "max_pool: attribute 'kernel' (a list of integers) is required");
  pool_error("avg_pool", f32({4, 4}, seq(16)), {{"kernel", Dims{2, 2}}}, StatusCode::kTypeError,
             "avg_pool: argument 'input' must have rank 3 or more (batch, channels and spatial "
             "axes), but it has rank 2");
  pool_error("max_pool", x, {{"kernel", Dims{2}}}, StatusCode::kInvalidArgument,
             "max_pool: attribute 'kernel' must have 2 entries (one per spatial axis), got 1");
  pool_error("max_pool", x, {{"kernel", Dims{2, 0}}}, StatusCode::kInvalidArgument,
             "max_pool: attribute 'kernel' must be 1 or more, got 0");
  pool_error("avg_pool", x, {{"kernel", Dims{2, 2}}, {"strides", Dims{0, 1}}},
             StatusCode::kInvalidArgument,
             "avg_pool: attribute 'strides' must be 1 or more, got 0");
  pool_error("max_pool", x, {{"kernel", Dims{2, 2}}, {"dilations", Dims{1, 1}}},
             StatusCode::kInvalidArgument, "max_pool: unknown attribute 'dilations'");
  pool_error("max_pool", x, {{"kernel", Dims{2, 2}}, {"padding", std::string("full")}},
             StatusCode::kInvalidArgument,
             "max_pool: attribute 'padding' must be valid, same_upper, same_lower or explicit, "
             "got 'full'");
  pool_error(
      "avg_pool", x,
      {{"kernel", Dims{2, 2}}, {"padding", std::string("explicit")}, {"pads", Dims{1, 2, 0, 0}}},
      StatusCode::kInvalidArgument,
      "avg_pool: attribute 'pads' entry 1 is 2, but pads must be less than the kernel size "
      "of their axis (2)");
}

TEST_CASE("pooling: errors, continued") {
  auto x = f32({1, 4, 4, 1}, seq(16));
  auto pool_error = [&](const std::string& op, const HostTensor& in, const Attrs& attrs,
                        StatusCode code, const std::string& msg) {
    check_op_error(op, {{"I", in}}, attrs, code, msg);
  };
  pool_error("avg_pool", x, {{"kernel", Dims{2, 2}}, {"count_include_pad", int64_t{3}}},
             StatusCode::kInvalidArgument,
             "avg_pool: attribute 'count_include_pad' must be 0 or 1, got 3");
  pool_error("max_pool", x, {{"kernel", Dims{2, 2}}, {"count_include_pad", int64_t{1}}},
             StatusCode::kInvalidArgument, "max_pool: unknown attribute 'count_include_pad'");
  pool_error("max_pool", x, {{"kernel", Dims{2, 2}}, {"layout", std::string("NCHW")}},
             StatusCode::kInvalidArgument,
             "max_pool: attribute 'layout' must be channels_last or channels_first, got 'NCHW'");
  pool_error("global_avg_pool", f32({2, 2}, seq(4)), {}, StatusCode::kTypeError,
             "global_avg_pool: argument 'input' must have rank 3 or more (batch, channels and "
             "spatial axes), but it has rank 2");
  pool_error("global_max_pool", x, {{"keepdims", int64_t{2}}}, StatusCode::kInvalidArgument,
             "global_max_pool: attribute 'keepdims' must be 0 or 1, got 2");
  pool_error("global_max_pool", x, {{"kernel", Dims{2, 2}}}, StatusCode::kInvalidArgument,
             "global_max_pool: unknown attribute 'kernel'");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

TEST_CASE("nn ops: f16 and bf16") {
  for (DType t : {DType::F16, DType::BF16}) {
    auto h = [t](std::vector<int64_t> d, std::vector<double> v) {
      return make_tensor(t, std::move(d), std::move(v));
    };
    check_tensor(run_ok("matmul", {{"A", h({1, 2}, {1, 2})}, {"B", h({2, 1}, {3, 4})}}),
                 h({1, 1}, {11}));
    check_tensor(
        run_ok("avg_pool", {{"I", h({1, 3, 1}, {1, 2, 4})}},
               {{"kernel", Dims{2}}, {"strides", Dims{1}}, {"padding", std::string("same_upper")}}),
        h({1, 3, 1}, {1.5, 3, 4}));
    check_tensor(run_ok("conv", {{"I", h({1, 3, 1}, {1, 2, 3})},
                                 {"K", h({2, 1, 1}, {1, -1})},
                                 {"B", h({1}, {0.5})}}),
                 h({1, 2, 1}, {-0.5, -0.5}));
    check_tensor(run_ok("global_avg_pool", {{"I", h({1, 2, 1}, {1, 4})}}), h({1, 1}, {2.5}));
  }
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

TEST_CASE("nn ops: f16 results keep their dtype through guards and biases") {
  auto h = [](std::vector<int64_t> d, std::vector<double> v) {
    return make_tensor(DType::F16, std::move(d), std::move(v));
  };
  check_tensor(
      run_ok("gemm", {{"A", h({1, 2}, {1, 2})}, {"B", h({2, 1}, {3, 4})}, {"C", h({1}, {1})}}),
      h({1, 1}, {12}));
  check_tensor(run_ok("dot", {{"A", h({2}, {1, 2})}, {"B", h({2}, {3, 4})}}), h({}, {11}));
  check_tensor(
      run_ok("conv_transpose", {{"I", h({1, 2, 1}, {1, 2})}, {"K", h({2, 1, 1}, {1, -1})}}),
      h({1, 3, 1}, {1, 1, -2}));
  check_tensor(run_ok("max_pool", {{"I", h({1, 3, 1}, {1, 5, 4})}}, {{"kernel", Dims{2}}}),
               h({1, 1, 1}, {5}));
}

}  // namespace plaidml::oplib::test
