#include "bench_cases.h"

#include <cmath>

namespace plaidml_bench {

namespace {

constexpr const char* kMatmulTile =
    "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";

// "Same" padding (pad 1 for 3x3), stride 1, no bias: exactly torch's conv2d(padding=1).
// Out-of-range input accesses do not count (TILE.md section 2), which is zero padding.
constexpr const char* kConvTile =
    "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
    "  O[n, y, x, co : N, H, W, CO] =\n"
    "      +(I[n, y + i - (KH - 1) / 2, x + j - (KW - 1) / 2, ci] * K[i, j, ci, co]);\n"
    "}\n";

BenchCase matmul_case(int64_t n) {
  BenchCase c;
  c.name = "matmul_" + std::to_string(n);
  c.shape = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n);
  c.tile = kMatmulTile;
  c.input_names = {"A", "B"};
  c.input_dims = {{n, n}, {n, n}};
  c.output_dims = {n, n};
  c.flop = 2.0 * double(n) * double(n) * double(n);
  c.reference = [n](const HostInputs& in, int64_t flat) {
    const int64_t i = flat / n, j = flat % n;
    Reference r;
    for (int64_t k = 0; k < n; ++k) {
      double term = double(in[0][i * n + k]) * double(in[1][k * n + j]);
      r.value += term;
      r.scale += std::fabs(term);
    }
    return r;
  };
  return c;
}

// ResNet-50's conv2_x 3x3 layer: NHWC input batch x 56 x 56 x 64, HWIO kernel 3x3x64x64.
BenchCase resnet_conv_case(int64_t batch) {
  const int64_t h = 56, w = 56, ci = 64, co = 64, kh = 3, kw = 3;
  BenchCase c;
  c.name = "conv3x3_56x56x64_n" + std::to_string(batch);
  c.shape = std::to_string(batch) + "x56x56x64 * 3x3x64x64, stride 1, pad 1";
  c.tile = kConvTile;
  c.input_names = {"I", "K"};
  c.input_dims = {{batch, h, w, ci}, {kh, kw, ci, co}};
  c.output_dims = {batch, h, w, co};
  c.flop = 2.0 * double(batch * h * w * co) * double(kh * kw * ci);
  c.reference = [=](const HostInputs& in, int64_t flat) {
    const int64_t o = flat % co, x = flat / co % w, y = flat / (co * w) % h,
                  n = flat / (co * w * h);
    Reference r;
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) {
        const int64_t iy = y + i - (kh - 1) / 2, ix = x + j - (kw - 1) / 2;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
        for (int64_t k = 0; k < ci; ++k) {
          double a = in[0][((n * h + iy) * w + ix) * ci + k];
          double b = in[1][((i * kw + j) * ci + k) * co + o];
          r.value += a * b;
          r.scale += std::fabs(a * b);
        }
      }
    }
    return r;
  };
  return c;
}

}  // namespace

std::vector<BenchCase> all_cases() {
  // The most expensive case last: should the device be slow, the others have run already.
  return {matmul_case(1024), resnet_conv_case(1), resnet_conv_case(32), matmul_case(4096)};
}

int64_t element_count(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

HostInputs make_inputs(const BenchCase& c, uint64_t seed) {
  HostInputs inputs;
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (const Dims& dims : c.input_dims) {
    std::vector<float> values(size_t(element_count(dims)));
    for (float& v : values) {
      // xorshift64*: cheap, and 24 high bits give an exact float in [0, 1).
      state ^= state >> 12;
      state ^= state << 25;
      state ^= state >> 27;
      uint64_t bits = (state * 0x2545F4914F6CDD1Dull) >> 40;
      v = float(bits) / float(1 << 24) * 2.0f - 1.0f;
    }
    inputs.push_back(std::move(values));
  }
  return inputs;
}

}  // namespace plaidml_bench
