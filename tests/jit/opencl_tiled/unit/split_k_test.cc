// Split-K (jit/codegen/gpu/split_k.h): which contractions split and by how much, the two
// kernels and the temporary a split makes, and the partial kernel's schedule (S workgroups
// along grid dimension 2). Their results are checked against the interpreter end to end on
// opencl:0 (tiled_e2e_test.cc) and by the conformance suite on every GPU device.
#include "jit/codegen/gpu/split_k.h"

#include <doctest/doctest.h>

#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/gpu_lowering.h"

namespace plaidml::jit::gpu {
namespace {

using jit::testing::lower_gpu;

const char* kGemmBiasRelu =
    "function (A[M, K], B[K, N], C[N]) -> (O) {\n"
    "  T[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "  O = relu(T + C);\n"
    "}";

std::vector<Shape> gemm(int64_t m, int64_t k, int64_t n, DType dtype = DType::F32) {
  return {Shape(dtype, {m, k}), Shape(dtype, {k, n}), Shape(dtype, {n})};
}

TEST_CASE("split-K: the factor divides the reduction, parts of 128 or more, small outputs only") {
  CHECK(split_factor(128 * 768, 3072, 132) == 8);    // GPT-2's MLP down-projection on the H200
  CHECK(split_factor(128 * 768, 768, 132) == 6);     // BERT's attention projections
  CHECK(split_factor(128 * 3072, 768, 132) == 6);    // its MLP up-projection: 2,978 per unit
  CHECK(split_factor(128 * 768, 384, 132) == 0);     // too short a reduction
  CHECK(split_factor(4096 * 4096, 4096, 132) == 0);  // enough outputs to fill the device
  CHECK(split_factor(128 * 4608, 768, 132) == 0);    // 4,468 points per unit: enough
  CHECK(split_factor(100, 520, 1) == 4);             // 520 / 8 < 128, 6 does not divide it
  CHECK(split_factor(100, 900, 1) == 6);             // 8 does not divide it
  CHECK(split_factor(100, 513, 1) == 3);             // odd: 3 parts of 171
  CHECK(split_factor(100, 1030, 1) == 2);            // only 2 divides it
  CHECK(split_factor(100, 1031, 1) == 0);            // nothing does
}

TEST_CASE("split-K: a long f32 sum over a small output becomes a partial and a combine kernel") {
  LoweredProgram p = lower_gpu(kGemmBiasRelu, gemm(8, 512, 16));  // 4 parts of 128
  const size_t slots = p.slots.size(), kernels = p.kernels.size();
  split_long_reductions(p, 2);
  REQUIRE(p.kernels.size() == kernels + 1);
  REQUIRE(p.slots.size() == slots + 1);
  const BufferSlot& temp = p.slots.back();
  CHECK(temp.role == BufferSlot::Role::kTemp);
  CHECK(temp.shape == Shape(DType::F32, {4 * 8 * 16}));
  const loop::Kernel& partial = p.kernels[p.kernels.size() - 2];
  const loop::Kernel& combine = p.kernels.back();
  const int t = static_cast<int>(p.slots.size() - 1);
  CHECK(partial.writes == std::vector<int>{t});
  CHECK(std::count(combine.reads.begin(), combine.reads.end(), t) == 1);
  GpuTarget target;
  target.max_workgroup_size = 256;
  target.local_memory_bytes = 32768;
  target.compute_units = 2;
  GpuSchedule s = schedule_program(p, target, DispatchLimits{});
  REQUIRE(s.tiled[s.tiled.size() - 2].has_value());
  CHECK(s.tiled[s.tiled.size() - 2]->launch.grid[2] == 4);  // the parts, one workgroup each
}

TEST_CASE("split-K: other contractions keep their one kernel") {
  for (auto [text, shapes] : std::vector<std::pair<const char*, std::vector<Shape>>>{
           {kGemmBiasRelu, gemm(8, 256, 16)},               // a short reduction
           {kGemmBiasRelu, gemm(1024, 1024, 1024)},         // a large output
           {kGemmBiasRelu, gemm(8, 1024, 16, DType::I32)},  // an integer sum
           {"function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = >(A[i, k] + B[k, j]); }",
            {Shape(DType::F32, {8, 1024}), Shape(DType::F32, {1024, 16})}},  // a max
           {"function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
            "  O[n, x, y, co : 1, 2, 2, 4] = +(I[n, x + i, y + j, c] * F[i, j, c, co]);\n"
            "}",
            {Shape(DType::F32, {1, 4, 4, 1024}), Shape(DType::F32, {3, 3, 1024, 4})}}}) {  // taps
    CAPTURE(text);
    LoweredProgram p = lower_gpu(text, shapes);
    const size_t kernels = p.kernels.size(), slots = p.slots.size();
    split_long_reductions(p, 2);
    CHECK(p.kernels.size() == kernels);
    CHECK(p.slots.size() == slots);
  }
}

}  // namespace
}  // namespace plaidml::jit::gpu
