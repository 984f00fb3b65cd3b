#include "bench_oracle.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace plaidml_bench {

namespace {

Reference matmul_element(const MatmulOp& op, const HostInputs& in, int64_t flat) {
  const int64_t i = flat / op.n, j = flat % op.n;
  Reference r;
  for (int64_t k = 0; k < op.k; ++k) {
    double term = double(in[0][i * op.k + k]) * double(in[1][k * op.n + j]);
    r.value += term;
    r.scale += std::fabs(term);
  }
  return r;
}

Reference conv_element(const ConvOp& op, const HostInputs& in, int64_t flat) {
  const int64_t oh = op.out_h(), ow = op.out_w();
  const int64_t o = flat % op.co, x = flat / op.co % ow, y = flat / (op.co * ow) % oh,
                n = flat / (op.co * ow * oh);
  Reference r;
  for (int64_t i = 0; i < op.kh; ++i) {
    const int64_t iy = y * op.stride + i - op.pad;
    if (iy < 0 || iy >= op.h) continue;
    for (int64_t j = 0; j < op.kw; ++j) {
      const int64_t ix = x * op.stride + j - op.pad;
      if (ix < 0 || ix >= op.w) continue;
      for (int64_t k = 0; k < op.ci; ++k) {
        double a = in[0][((n * op.h + iy) * op.w + ix) * op.ci + k];
        double b = in[1][((i * op.kw + j) * op.ci + k) * op.co + o];
        r.value += a * b;
        r.scale += std::fabs(a * b);
      }
    }
  }
  if (op.bias_relu) {
    r.value = std::max(0.0, r.value + double(in[2][o]));
    r.scale += std::fabs(double(in[2][o]));
  }
  return r;
}

// A probability's float32 error is relative to itself (each exp is good to an ulp or so, the sum
// to a few), so the scale is the value.
Reference softmax_element(const SoftmaxOp& op, const HostInputs& in, int64_t flat) {
  const float* row = in[0].data() + flat / op.classes * op.classes;
  double max = row[0];
  for (int64_t c = 1; c < op.classes; ++c) max = std::max(max, double(row[c]));
  double sum = 0;
  for (int64_t c = 0; c < op.classes; ++c) sum += std::exp(double(row[c]) - max);
  Reference r;
  r.value = std::exp(double(row[flat % op.classes]) - max) / sum;
  r.scale = r.value;
  return r;
}

}  // namespace

Reference reference(const BenchCase& c, const HostInputs& inputs, int64_t flat_output_index) {
  return std::visit(
      [&](const auto& op) {
        using Op = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<Op, MatmulOp>) {
          return matmul_element(op, inputs, flat_output_index);
        } else if constexpr (std::is_same_v<Op, ConvOp>) {
          return conv_element(op, inputs, flat_output_index);
        } else {
          return softmax_element(op, inputs, flat_output_index);
        }
      },
      c.op);
}

}  // namespace plaidml_bench
