// The README demo network (examples/tile/convnet.tile) run through the CLI on seeded random
// inputs, checked against a direct loop implementation written here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cli_harness.h"
#include "generate.h"

namespace plaidml_cli::testing {
namespace {

using Tensor = std::vector<double>;

// 3x3 "same" convolution NHWC x HWIO, plus bias, then relu.
Tensor conv_relu(const Tensor& in, int n, int h, int w, int ci, const Tensor& k, const Tensor& b,
                 int co) {
  Tensor out(static_cast<size_t>(n * h * w * co));
  for (int b0 = 0; b0 < n; ++b0)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < co; ++c) {
          double acc = 0;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              for (int d = 0; d < ci; ++d) {
                int yy = y + i - 1, xx = x + j - 1;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                acc += in[((b0 * h + yy) * w + xx) * ci + d] * k[((i * 3 + j) * ci + d) * co + c];
              }
          out[((b0 * h + y) * w + x) * co + c] = std::max(0.0, acc + b[c]);
        }
  return out;
}

Tensor max_pool2(const Tensor& in, int n, int h, int w, int c) {
  Tensor out(static_cast<size_t>(n * (h / 2) * (w / 2) * c), -INFINITY);
  for (int b0 = 0; b0 < n; ++b0)
    for (int y = 0; y < h / 2 * 2; ++y)
      for (int x = 0; x < w / 2 * 2; ++x)
        for (int d = 0; d < c; ++d) {
          double& o = out[((b0 * (h / 2) + y / 2) * (w / 2) + x / 2) * c + d];
          o = std::max(o, in[((b0 * h + y) * w + x) * c + d]);
        }
  return out;
}

// Global average pool, dense, softmax.
Tensor head(const Tensor& in, int n, int hw, int c, const Tensor& wt, const Tensor& bias,
            int classes) {
  Tensor out(static_cast<size_t>(n * classes));
  for (int b0 = 0; b0 < n; ++b0) {
    std::vector<double> g(c, 0.0);
    for (int p = 0; p < hw; ++p)
      for (int d = 0; d < c; ++d) g[d] += in[(b0 * hw + p) * c + d] / hw;
    double mx = -INFINITY, sum = 0;
    for (int k = 0; k < classes; ++k) {
      double z = bias[k];
      for (int d = 0; d < c; ++d) z += g[d] * wt[d * classes + k];
      out[b0 * classes + k] = z;
      mx = std::max(mx, z);
    }
    for (int k = 0; k < classes; ++k)
      sum += out[b0 * classes + k] = std::exp(out[b0 * classes + k] - mx);
    for (int k = 0; k < classes; ++k) out[b0 * classes + k] /= sum;
  }
  return out;
}

TEST_CASE("the convnet example matches a loop implementation") {
  const int n = 2, h = 6, w = 6, c0 = 2, c1 = 3, c2 = 4, classes = 5;
  std::map<std::string, std::vector<int64_t>> shapes = {
      {"I", {n, h, w, c0}}, {"K1", {3, 3, c0, c1}}, {"B1", {c1}},     {"K2", {3, 3, c1, c2}},
      {"B2", {c2}},         {"W", {c2, classes}},   {"B3", {classes}}};
  ScratchDir dir;
  std::map<std::string, Tensor> in;
  std::string args = "run '" + example_file("convnet.tile") + "' -o out";
  for (const auto& [name, dims] : shapes) {
    InputSpec spec;
    spec.name = name;
    spec.kind = InputSpec::Kind::kRandom;
    spec.dtype = Dtype::F32;
    spec.dims = dims;
    NpyArray a = generate_input(spec, 11);
    write_array(dir.path(name + ".npy"), a);
    in[name] = values_of(a);
    args += " -i " + name + "=" + name + ".npy";
  }
  auto r = run_cli(dir, args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  NpyArray p = read_array(dir.path("out/P.npy"));
  CHECK(p.shape == std::vector<int64_t>{n, classes});
  Tensor r1 = conv_relu(in["I"], n, h, w, c0, in["K1"], in["B1"], c1);
  Tensor m1 = max_pool2(r1, n, h, w, c1);
  Tensor r2 = conv_relu(m1, n, h / 2, w / 2, c1, in["K2"], in["B2"], c2);
  Tensor expected = head(r2, n, (h / 2) * (w / 2), c2, in["W"], in["B3"], classes);
  Tensor got = values_of(p);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-5));
  }
}

}  // namespace
}  // namespace plaidml_cli::testing
