// The benchmark shapes as Tile programs (f32 matmuls, NHWC convolutions, softmax), with their
// inputs, FLOP counts and a description of the operation that peers (oneDNN, OpenBLAS) and the
// float64 oracle (bench_oracle.h) read. Case names are stable keys: JSON lines from different
// tools and runs are joined on them.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace plaidml_bench {

using Dims = std::vector<int64_t>;
using HostInputs = std::vector<std::vector<float>>;

// C[M, N] = A[M, K] x B[K, N], row-major.
struct MatmulOp {
  int64_t m = 0, k = 0, n = 0;
};

// O = conv(I, K) (+ B, then relu when bias_relu): NHWC input I[n, h, w, ci], HWIO kernel
// K[kh, kw, ci, co], NHWC output, the same stride and zero padding on both spatial axes.
struct ConvOp {
  int64_t n = 1, h = 0, w = 0, ci = 0, co = 0, kh = 0, kw = 0, stride = 1, pad = 0;
  bool bias_relu = false;
  int64_t out_h() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - kw) / stride + 1; }
};

// P[r, c] = exp(X[r, c] - max_c X[r, :]) / sum_c exp(...), over the last axis.
struct SoftmaxOp {
  int64_t rows = 0, classes = 0;
};

using CaseOp = std::variant<MatmulOp, ConvOp, SoftmaxOp>;

struct BenchCase {
  std::string name;   // stable key shared with the peers' JSON ("matmul_1024")
  std::string shape;  // human description ("1024x1024x1024")
  std::string tile;
  std::vector<std::string> input_names;
  std::vector<Dims> input_dims;
  Dims output_dims;
  double flop = 0;   // multiply-adds count as 2; 0 where FLOPs mean little (softmax)
  double bytes = 0;  // inputs read once plus the output written once: the least memory traffic
  CaseOp op;
  // Inputs and output are f16 (the host values rounded to f16, so the float64 oracle sees what
  // the device does); checked at f16's tolerance.
  bool half = false;
};

BenchCase matmul_case(int64_t m, int64_t k, int64_t n);
// matmul_f16_4096: the square f16 matmul summed in f32 (tensor cores where the device has them).
BenchCase matmul_f16_case(int64_t n);
BenchCase conv_case(const ConvOp& op);
BenchCase softmax_case(int64_t rows, int64_t classes);

// ResNet-50's convolution layers as the GPU bench runs them (batch 1, the caller sets n): the
// 7x7 stem, the 3x3 layer of each stage, three of its 1x1 layers. bench/torch_gpu.py lists the
// same layers, by the same names.
std::vector<ConvOp> resnet50_gpu_convs();

// The GPU bench's cases, in the order they run: matmul_1024, matmul_2048, the ResNet-50
// layers at batch 1 then 32 (conv3x3_56x56x64_n1, ...), matmul_f16_1024 to _8192, matmul_4096,
// matmul_8192 (the f32 matmuls are those of CLBlast's column, bench/clblast_gpu.cc).
std::vector<BenchCase> gpu_cases();

// The CPU bench's cases (issue 5): square and skinny matmuls, the ResNet-50 conv layers at
// batch 1, a fused conv + bias + relu and a softmax over 1000 classes.
std::vector<BenchCase> cpu_cases();

int64_t element_count(const Dims& dims);

// Deterministic inputs in [-1, 1) (a fixed generator, so runs and machines agree).
HostInputs make_inputs(const BenchCase& c, uint64_t seed);

}  // namespace plaidml_bench
