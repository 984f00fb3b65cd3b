#include "bench_cases.h"

#include <string>
#include <utility>

#include "bench_half.h"

namespace plaidml_bench {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// "2 * y + i - 3": the input coordinate that output coordinate `out` and kernel tap `tap` read.
// Out-of-range input accesses do not count (docs/tile.md section 2), which is zero padding.
std::string input_index(const std::string& out, const std::string& tap, int64_t stride,
                        int64_t pad) {
  std::string s = (stride == 1 ? out : str(stride) + " * " + out) + " + " + tap;
  return pad == 0 ? s : s + " - " + str(pad);
}

// "(H + 6 - KH) / 2 + 1": the output size along one axis, over the program's dims.
std::string output_size(const std::string& dim, const std::string& kdim, int64_t stride,
                        int64_t pad) {
  std::string span = dim + (pad == 0 ? "" : " + " + str(2 * pad)) + " - " + kdim;
  return stride == 1 ? span + " + 1" : "(" + span + ") / " + str(stride) + " + 1";
}

std::string conv_tile(const ConvOp& op) {
  const std::string y = input_index("y", "i", op.stride, op.pad);
  const std::string x = input_index("x", "j", op.stride, op.pad);
  const std::string target = op.bias_relu ? "C" : "O";
  std::string t = op.bias_relu ? "function (I[N, H, W, CI], K[KH, KW, CI, CO], B[CO]) -> (O) {\n"
                               : "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n";
  t += "  " + target + "[n, y, x, co : N, " + output_size("H", "KH", op.stride, op.pad) + ", " +
       output_size("W", "KW", op.stride, op.pad) + ", CO] =\n";
  t += "      +(I[n, " + y + ", " + x + ", ci] * K[i, j, ci, co]);\n";
  if (op.bias_relu) t += "  O = relu(C + B);\n";
  return t + "}\n";
}

// conv3x3_56x56x64_n1, conv7x7s2_224x224x3_n1, conv1x1_56x56x256to64_n1,
// conv3x3_bias_relu_56x56x64_n1: the channel count out is named only when it differs from in.
std::string conv_name(const ConvOp& op) {
  std::string name = "conv" + str(op.kh) + "x" + str(op.kw);
  if (op.stride != 1) name += "s" + str(op.stride);
  if (op.bias_relu) name += "_bias_relu";
  name += "_" + str(op.h) + "x" + str(op.w) + "x" + str(op.ci);
  if (op.co != op.ci && op.kh == 1) name += "to" + str(op.co);
  return name + "_n" + str(op.n);
}

std::string conv_shape(const ConvOp& op) {
  std::string s = str(op.n) + "x" + str(op.h) + "x" + str(op.w) + "x" + str(op.ci) + " * " +
                  str(op.kh) + "x" + str(op.kw) + "x" + str(op.ci) + "x" + str(op.co) +
                  ", stride " + str(op.stride) + ", pad " + str(op.pad);
  return op.bias_relu ? s + ", + bias, relu" : s;
}

double total_bytes(const BenchCase& c) {
  double elements = double(element_count(c.output_dims));
  for (const Dims& dims : c.input_dims) elements += double(element_count(dims));
  return elements * sizeof(float);
}

}  // namespace

BenchCase matmul_case(int64_t m, int64_t k, int64_t n) {
  BenchCase c;
  const bool square = m == k && k == n;
  c.name = "matmul_" + (square ? str(n) : str(m) + "x" + str(k) + "x" + str(n));
  c.shape = str(m) + "x" + str(k) + "x" + str(n) + " (M x K x N)";
  c.tile = "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  c.input_names = {"A", "B"};
  c.input_dims = {{m, k}, {k, n}};
  c.output_dims = {m, n};
  c.flop = 2.0 * double(m) * double(k) * double(n);
  c.bytes = total_bytes(c);
  c.op = MatmulOp{m, k, n};
  return c;
}

BenchCase matmul_f16_case(int64_t n) {
  BenchCase c = matmul_case(n, n, n);
  c.name = "matmul_f16_" + str(n);
  c.shape += ", f16";
  c.bytes /= 2;
  c.half = true;
  return c;
}

BenchCase conv_case(const ConvOp& op) {
  BenchCase c;
  c.name = conv_name(op);
  c.shape = conv_shape(op);
  c.tile = conv_tile(op);
  c.input_names = {"I", "K"};
  c.input_dims = {{op.n, op.h, op.w, op.ci}, {op.kh, op.kw, op.ci, op.co}};
  if (op.bias_relu) {
    c.input_names.push_back("B");
    c.input_dims.push_back({op.co});
  }
  c.output_dims = {op.n, op.out_h(), op.out_w(), op.co};
  const double outputs = double(element_count(c.output_dims));
  c.flop = 2.0 * outputs * double(op.kh * op.kw * op.ci) + (op.bias_relu ? 2.0 * outputs : 0.0);
  c.bytes = total_bytes(c);
  c.op = op;
  return c;
}

// The max is subtracted for stability, as every framework's softmax does; the [N, 1] shapes of
// the row max and row sum broadcast over the classes.
BenchCase softmax_case(int64_t rows, int64_t classes) {
  BenchCase c;
  c.name = "softmax_" + str(rows) + "x" + str(classes);
  c.shape = str(rows) + "x" + str(classes) + ", over the last axis";
  c.tile =
      "function (X[N, C]) -> (P) {\n"
      "  M[n, 0 : N, 1] = >(X[n, c]);\n"
      "  E = exp(X - M);\n"
      "  S[n, 0 : N, 1] = +(E[n, c]);\n"
      "  P = E / S;\n"
      "}\n";
  c.input_names = {"X"};
  c.input_dims = {{rows, classes}};
  c.output_dims = {rows, classes};
  c.bytes = total_bytes(c);
  c.op = SoftmaxOp{rows, classes};
  return c;
}

std::vector<ConvOp> resnet50_gpu_convs() {
  auto conv3x3 = [](int64_t hw, int64_t c) {
    return ConvOp{.h = hw, .w = hw, .ci = c, .co = c, .kh = 3, .kw = 3, .pad = 1};
  };
  auto conv1x1 = [](int64_t hw, int64_t ci, int64_t co) {
    return ConvOp{.h = hw, .w = hw, .ci = ci, .co = co, .kh = 1, .kw = 1};
  };
  return {ConvOp{.h = 224, .w = 224, .ci = 3, .co = 64, .kh = 7, .kw = 7, .stride = 2, .pad = 3},
          conv3x3(56, 64),
          conv3x3(28, 128),
          conv3x3(14, 256),
          conv3x3(7, 512),
          conv1x1(56, 256, 64),
          conv1x1(14, 256, 1024),
          conv1x1(7, 2048, 512)};
}

std::vector<BenchCase> gpu_cases() {
  std::vector<BenchCase> out = {matmul_case(1024, 1024, 1024), matmul_case(2048, 2048, 2048)};
  // BERT-base's and GPT-2 small's projections at sequence 128 and batch 1 (QKV, attention out,
  // MLP up, MLP down): few output tiles for a device of 100+ compute units.
  for (auto [k, n] :
       {std::pair<int64_t, int64_t>{768, 768}, {768, 2304}, {768, 3072}, {3072, 768}}) {
    out.push_back(matmul_case(128, k, n));
  }
  for (int64_t batch : {1, 32}) {
    for (ConvOp op : resnet50_gpu_convs()) {
      op.n = batch;
      out.push_back(conv_case(op));
    }
  }
  for (int64_t n : {1024, 2048, 4096, 8192}) out.push_back(matmul_f16_case(n));
  // The most expensive cases last: should the device be slow, the others have run already.
  out.push_back(matmul_case(4096, 4096, 4096));
  out.push_back(matmul_case(8192, 8192, 8192));
  return out;
}

std::vector<BenchCase> cpu_cases() {
  auto conv3x3 = [](int64_t hw, int64_t c) {
    return ConvOp{.h = hw, .w = hw, .ci = c, .co = c, .kh = 3, .kw = 3, .pad = 1};
  };
  ConvOp fused = conv3x3(56, 64);
  fused.bias_relu = true;
  return {
      matmul_case(64, 64, 64),
      matmul_case(256, 256, 256),
      matmul_case(1024, 1024, 1024),
      matmul_case(2048, 2048, 2048),
      matmul_case(1, 4096, 4096),
      matmul_case(4096, 64, 4096),
      conv_case({.h = 224, .w = 224, .ci = 3, .co = 64, .kh = 7, .kw = 7, .stride = 2, .pad = 3}),
      conv_case(conv3x3(56, 64)),
      conv_case(conv3x3(28, 128)),
      conv_case(conv3x3(14, 256)),
      conv_case(conv3x3(7, 512)),
      conv_case({.h = 56, .w = 56, .ci = 256, .co = 64, .kh = 1, .kw = 1}),
      // ResNet-50's deep 1x1 layers: few rows (196 and 49 pixels), weights of 1 to 4 MiB.
      conv_case({.h = 14, .w = 14, .ci = 256, .co = 1024, .kh = 1, .kw = 1}),
      conv_case({.h = 14, .w = 14, .ci = 1024, .co = 256, .kh = 1, .kw = 1}),
      conv_case({.h = 7, .w = 7, .ci = 512, .co = 2048, .kh = 1, .kw = 1}),
      conv_case({.h = 7, .w = 7, .ci = 2048, .co = 512, .kh = 1, .kw = 1}),
      conv_case(fused),
      softmax_case(64, 1000),
  };
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
      if (c.half) v = half_value(half_bits(v));
    }
    inputs.push_back(std::move(values));
  }
  return inputs;
}

}  // namespace plaidml_bench
