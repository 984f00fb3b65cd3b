// Tiled contraction kernels end to end on opencl:0 (PoCL in CI): each case runs through the
// Runtime and is compared with the reference interpreter; the OpenCL C generated for a device
// like it shows whether the tiled path was taken (its kernels stage through __local memory).
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/eval/interpreter.h"
#include "jit/codegen/opencl/opencl_codegen.h"
#include "jit/gpu_lowering.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"
#include "support/tensors.h"

namespace plaidml::jit {
namespace {

using plaidml::testing::compare_tensors;
using plaidml::testing::random_tensor;

struct Device {
  std::unique_ptr<Runtime> runtime;
  int index = -1;
};

Device& opencl_device() {
  static Device d = [] {
    Device out;
    RuntimeOptions options;
    options.num_threads = 2;
    auto rt = Runtime::create(options);
    REQUIRE_MESSAGE(rt.has_value(), rt.status().message());
    out.runtime = std::move(*rt);
    auto index = out.runtime->find_device("opencl:0");
    REQUIRE_MESSAGE(index.has_value(), index.status().message());
    out.index = *index;
    return out;
  }();
  return d;
}

// The OpenCL C of the program for a PoCL-like device (large workgroups, 2 compute units).
std::string opencl_source(const std::string& text, const std::vector<Shape>& shapes) {
  LoweredProgram lowered = testing::lower_gpu(text, shapes);
  GpuTarget target;
  target.device_name = "test";
  target.max_workgroup_size = 4096;
  target.local_memory_bytes = 1 << 20;
  target.compute_units = 2;
  target.fp16 = true;
  auto artifact = emit_opencl(lowered, target);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  return std::string(artifact->bytes.begin(), artifact->bytes.end());
}

// `nonfinite_input`: an input given plant_nonfinite's inf and NaN elements; `tolerance`: the
// comparison's, where the default is too tight for the number of terms.
void run_case(const std::string& text, const std::vector<Shape>& shapes, bool tiled,
              int nonfinite_input = -1,
              std::optional<plaidml::testing::Tolerance> tolerance = std::nullopt) {
  INFO(text);
  std::string source = opencl_source(text, shapes);
  INFO(source);
  CHECK((source.find("__local") != std::string::npos) == tiled);

  auto program = parse::parse_tile(text, "test");
  REQUIRE(program.has_value());
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) inputs.push_back(random_tensor(shapes[i], 11 + i));
  if (nonfinite_input >= 0) {
    plaidml::testing::plant_nonfinite(inputs[static_cast<size_t>(nonfinite_input)]);
  }
  auto bound = ir::bind(*program, shapes);
  REQUIRE(bound.has_value());
  auto want = eval::evaluate(*bound, inputs);
  REQUIRE_MESSAGE(want.has_value(), want.status().message());

  Device& d = opencl_device();
  std::vector<std::pair<std::string, std::shared_ptr<Buffer>>> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto b = d.runtime->allocate(d.index, inputs[i].shape);
    REQUIRE(b.has_value());
    REQUIRE(d.runtime->write(**b, inputs[i].bytes.data(), inputs[i].bytes.size()).is_ok());
    in.emplace_back((*program)->nodes[(*program)->inputs[i]].name, *b);
  }
  Status s = run_by_name(*d.runtime, *program, d.index, in, &out);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(out.size() == want->size());
  for (size_t i = 0; i < out.size(); ++i) {
    HostTensor got(out[i].second->shape());
    REQUIRE(d.runtime->read(*out[i].second, got.bytes.data(), got.bytes.size()).is_ok());
    std::string report = compare_tensors(got, (*want)[i], tolerance);
    CHECK_MESSAGE(report.empty(), report);
  }
}

const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";

Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, std::move(dims)); }

TEST_CASE("opencl tiled: matmul at ragged sizes") {
  run_case(kMatmul, {f32({1, 1}), f32({1, 1})}, false);
  run_case(kMatmul, {f32({63, 65}), f32({65, 17})}, true);
  run_case(kMatmul, {f32({130, 7}), f32({7, 129})}, true);
}

TEST_CASE("opencl tiled: matmul in f16 and i32") {
  run_case(kMatmul, {Shape(DType::F16, {33, 40}), Shape(DType::F16, {40, 20})}, true);
  run_case(kMatmul, {Shape(DType::I32, {19, 24}), Shape(DType::I32, {24, 21})}, true);
}

TEST_CASE("opencl tiled: a long reduction over a small output, split in two kernels (split-K)") {
  // 8 x 16 outputs over 1024 terms: on PoCL's 2 compute units the compiler splits it in 4
  // (jit/codegen/gpu/split_k.h); the fused bias and relu run in the combining kernel.
  run_case(
      "function (A[M, K], B[K, N], C[N]) -> (O) {\n"
      "  T[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
      "  O = relu(T + C);\n"
      "}",
      {f32({8, 1024}), f32({1024, 16}), f32({16})}, true);
  run_case(kMatmul, {f32({3, 2000}), f32({2000, 5})}, true);  // 2000 = 8 x 250: 4 parts of 500
}

TEST_CASE("opencl tiled: max-plus product: a max aggregation with an add combination") {
  run_case("function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = >(A[i, k] + B[k, j]); }",
           {f32({20, 30}), f32({30, 18})}, true);
}

TEST_CASE("opencl tiled: strided padded conv") {
  run_case(
      "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
      "  O[n, x, y, co : 1, 4, 4, 5] = +(I[n, 2 * x + i - 1, 2 * y + j - 1, c] * F[i, j, c, co]);\n"
      "}",
      {f32({1, 8, 8, 6}), f32({3, 3, 6, 5})}, true);
  // ResNet's stem: 7x7, stride 2, padding 3 over 3 channels, its reduction loops merged into
  // one k of 147 (reduction_merge.h), here with inf and NaN weights (the finite stem runs on
  // lavapipe: tiled_cases.h). 147 terms in [-1, 1) with FMA contraction: an absolute tolerance
  // of 147 roundings.
  const char* stem =
      "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, (H + 1) / 2, (W + 1) / 2, CO] =\n"
      "      +(I[n, 2 * x + i - 3, 2 * y + j - 3, c] * F[i, j, c, co]);\n"
      "}";
  const plaidml::testing::Tolerance terms{1e-5, 1e-5};
  run_case(stem, {f32({1, 17, 17, 3}), f32({7, 7, 3, 8})}, true, 1, terms);
}

TEST_CASE("opencl tiled: padded conv with inf and NaN weights, in the reference's order of terms") {
  // The padding is zero-filled (TiledPlan::zero_fill); a workgroup that staged a non-finite
  // weight recomputes its points with the reference's guards, where 0 * inf would be NaN.
  const char* conv =
      "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, H, W, CO] = +(I[n, x + i - 1, y + j - 1, c] * F[i, j, c, co]);\n"
      "}";
  // Several workgroups (2x9x11x8 -> 12 runs on lavapipe: tiled_cases.h).
  run_case(conv, {f32({1, 30, 30, 4}), f32({3, 3, 4, 40})}, true, 1);
}

TEST_CASE("opencl tiled: max pool") {
  run_case(
      "function (I[H, W]) -> (O) { O[x, y : 5, 5] = >(I[2 * x + i, 2 * y + j]), i < 3, j < 3; }",
      {f32({11, 11})}, false);
}

TEST_CASE("opencl tiled: matrix-vector product and an output written in part (init kernel first)") {
  run_case("function (A[M, K], X[K]) -> (Y) { Y[i : M] = +(A[i, k] * X[k]); }",
           {f32({70, 33}), f32({33})}, true);
  run_case("function (A[M, K], B[K, N]) -> (C) { C[i + 1, j : M + 2, N] = +(A[i, k] * B[k, j]); }",
           {f32({9, 16}), f32({16, 10})}, true);
}

}  // namespace
}  // namespace plaidml::jit
