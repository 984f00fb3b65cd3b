// OpenBLAS as the CPU bench's peer: cblas_sgemm for matmuls, and for convolutions the classic
// im2col + sgemm (a 1x1 stride-1 convolution on NHWC is a plain sgemm and skips im2col). NHWC
// patches [N*OH*OW, KH*KW*CI] times the HWIO kernel read as [KH*KW*CI, CO] give the NHWC output.
// im2col and the bias + relu pass are timed as part of the convolution and run on the same number
// of threads (OpenMP) as the sgemm (OpenBLAS's own pthreads). OpenBLAS has no softmax: n/a.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>

#include "cpu_peers.h"

namespace plaidml_bench {

namespace {

// Row-major C[m, n] = A[m, k] x B[k, n].
void sgemm(int64_t m, int64_t k, int64_t n, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a, int(k), b,
              int(n), 0.0f, c, int(n));
}

PreparedCase prepare_sgemm_matmul(const MatmulOp& op, const HostInputs& in) {
  auto out = std::make_shared<std::vector<float>>(size_t(op.m * op.n));
  PreparedCase p;
  p.detail = "sgemm";
  p.run = [op, &in, out] { sgemm(op.m, op.k, op.n, in[0].data(), in[1].data(), out->data()); };
  p.output = [out] { return *out; };
  return p;
}

// One output pixel's patch: KH*KW*CI values, zeros where the window leaves the image.
void patch_row(const ConvOp& op, const float* image, int64_t y, int64_t x, float* row) {
  for (int64_t i = 0; i < op.kh; ++i) {
    const int64_t iy = y * op.stride + i - op.pad;
    for (int64_t j = 0; j < op.kw; ++j, row += op.ci) {
      const int64_t ix = x * op.stride + j - op.pad;
      if (iy < 0 || iy >= op.h || ix < 0 || ix >= op.w) {
        std::fill(row, row + op.ci, 0.0f);
      } else {
        std::memcpy(row, image + (iy * op.w + ix) * op.ci, size_t(op.ci) * sizeof(float));
      }
    }
  }
}

void im2col(const ConvOp& op, const float* input, float* patches, int threads) {
  const int64_t oh = op.out_h(), ow = op.out_w(), width = op.kh * op.kw * op.ci;
  const int64_t rows = op.n * oh;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* image = input + r / oh * op.h * op.w * op.ci;
    for (int64_t x = 0; x < ow; ++x)
      patch_row(op, image, r % oh, x, patches + (r * ow + x) * width);
  }
}

void bias_relu(float* out, const float* bias, int64_t pixels, int64_t channels, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t c = 0; c < channels; ++c)
      out[p * channels + c] = std::max(0.0f, out[p * channels + c] + bias[c]);
  }
}

PreparedCase prepare_im2col_conv(const ConvOp& op, const HostInputs& in, int threads) {
  const int64_t pixels = op.n * op.out_h() * op.out_w(), width = op.kh * op.kw * op.ci;
  const bool direct = op.kh == 1 && op.kw == 1 && op.stride == 1 && op.pad == 0;
  auto out = std::make_shared<std::vector<float>>(size_t(pixels * op.co));
  auto patches = std::make_shared<std::vector<float>>(direct ? 0 : size_t(pixels * width));
  PreparedCase p;
  p.detail = direct ? "sgemm (1x1)" : "im2col + sgemm";
  if (op.bias_relu) p.detail += " + bias/relu pass";
  p.run = [op, &in, out, patches, direct, pixels, width, threads] {
    const float* a = in[0].data();
    if (!direct) {
      im2col(op, a, patches->data(), threads);
      a = patches->data();
    }
    sgemm(pixels, width, op.co, a, in[1].data(), out->data());
    if (op.bias_relu) bias_relu(out->data(), in[2].data(), pixels, op.co, threads);
  };
  p.output = [out] { return *out; };
  return p;
}

std::string config_word(int index) {
  std::istringstream words(openblas_get_config());
  std::string word;
  for (int i = 0; i <= index && (words >> word); ++i) {
  }
  return word;
}

}  // namespace

Peer openblas_peer() {
  Peer p;
  p.name = "openblas";
  p.version = config_word(1);  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake ..."
  p.detail = std::string("pthreads, core ") + openblas_get_corename();
  p.run = [](const BenchCase& c, int threads, const RunSettings& settings) {
    if (std::holds_alternative<SoftmaxOp>(c.op)) {
      CaseResult r;
      r.not_applicable = "OpenBLAS has no softmax";
      return r;
    }
    openblas_set_num_threads(threads);
    HostInputs inputs = make_inputs(c, settings.seed);
    return run_prepared(c, inputs, settings, [&]() -> PreparedCase {
      if (const auto* op = std::get_if<MatmulOp>(&c.op)) return prepare_sgemm_matmul(*op, inputs);
      return prepare_im2col_conv(std::get<ConvOp>(c.op), inputs, threads);
    });
  };
  return p;
}

}  // namespace plaidml_bench
