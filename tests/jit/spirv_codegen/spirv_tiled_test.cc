// The tiled contraction kernels of the SPIR-V generator without a device: each case of
// tiled_cases.h takes the tiled path (Workgroup arrays and barriers) and its module passes
// spirv-val --target-env vulkan1.1; the launch respects the target's workgroup limit; kernels
// that cannot be tiled keep the band-mapped form.
#include <doctest/doctest.h>

#include "jit/gpu_lowering.h"
#include "spirv_val.h"
#include "tiled_cases.h"

namespace plaidml::jit {
namespace {

SpirvTarget target(int max_workgroup_size, int64_t shared_memory_bytes) {
  SpirvTarget t;
  t.device_name = "test device";
  t.max_workgroup_size = max_workgroup_size;
  t.shared_memory_bytes = shared_memory_bytes;
  t.compute_units = 8;
  t.int8 = t.int16 = t.int64 = t.float16 = t.float64 = t.float_controls = true;
  return t;
}

Artifact emit(const std::string& tile, const std::vector<Shape>& shapes, const SpirvTarget& t) {
  LoweredProgram lowered = testing::lower_gpu(tile, shapes);
  auto artifact = emit_spirv(lowered, t);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  return std::move(*artifact);
}

void check_tiled(const SpirvTarget& t) {
  for (const testing::TiledCase& c : testing::tiled_cases()) {
    CAPTURE(c.name);
    Artifact a = emit(c.tile, c.shapes, t);
    CHECK(testing::has_tiled_kernel(a.bytes));
    // No case has i64 data and every index fits int32: all index arithmetic is i32.
    CHECK_FALSE(testing::uses_int64(a.bytes));
    std::string errors = plaidml::testing::spirv_val(a.bytes);
    CHECK_MESSAGE(errors.empty(), errors);
    for (const KernelEntry& k : a.kernels) {
      CHECK(k.workgroup[0] * k.workgroup[1] * k.workgroup[2] <=
            static_cast<uint32_t>(t.max_workgroup_size));
      CHECK(k.grid[0] >= 1);
    }
  }
}

TEST_CASE("spirv tiled: every case is tiled and valid at Vulkan's minimum limits") {
  check_tiled(target(128, 16384));
}

TEST_CASE("spirv tiled: every case is tiled and valid at a large GPU's limits") {
  check_tiled(target(1024, 49152));
}

TEST_CASE("spirv tiled: i8, i64 and f64 tiles are valid") {
  const std::string matmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  for (DType d : {DType::I8, DType::I64, DType::F64, DType::BF16}) {
    CAPTURE(dtype_name(d));
    Artifact a = emit(matmul, {Shape(d, {24, 40}), Shape(d, {40, 36})}, target(256, 32768));
    CHECK(testing::has_tiled_kernel(a.bytes));
    std::string errors = plaidml::testing::spirv_val(a.bytes);
    CHECK_MESSAGE(errors.empty(), errors);
  }
}

TEST_CASE("spirv index32: indices are i32 when the program fits, i64 otherwise") {
  const std::string matmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  Artifact fits = emit(matmul, {testing::f32({256, 128}), testing::f32({128, 192})},
                       target(1024, 49152));
  CHECK(testing::has_tiled_kernel(fits.bytes));
  CHECK_FALSE(testing::uses_int64(fits.bytes));
  CHECK(plaidml::testing::spirv_val(fits.bytes).empty());
  // A band-mapped kernel with serial loops and guards (a max pool) too.
  Artifact pool = emit(
      "function (I[H, W]) -> (O) { O[x, y : 5, 5] = >(I[2 * x + i - 1, 2 * y + j - 1]), "
      "i < 3, j < 3; }",
      {testing::f32({11, 11})}, target(128, 16384));
  CHECK_FALSE(testing::has_tiled_kernel(pool.bytes));
  CHECK_FALSE(testing::uses_int64(pool.bytes));
  CHECK(plaidml::testing::spirv_val(pool.bytes).empty());
  // A of 2^16 x (2^15 + 1) elements passes 2^31 (shapes only: nothing is allocated).
  Artifact big = emit(matmul, {testing::f32({1 << 16, (1 << 15) + 1}),
                               testing::f32({(1 << 15) + 1, 8})},
                      target(1024, 49152));
  CHECK(testing::uses_int64(big.bytes));
  std::string errors = plaidml::testing::spirv_val(big.bytes);
  CHECK_MESSAGE(errors.empty(), errors);
}

TEST_CASE("spirv tiled: kernels the plan rejects stay band-mapped") {
  // A 1x1 matmul is too small to pay for tiles; a max pool has no stageable load.
  Artifact tiny =
      emit("function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
           {testing::f32({1, 1}), testing::f32({1, 1})}, target(128, 16384));
  CHECK_FALSE(testing::has_tiled_kernel(tiny.bytes));
  Artifact pool = emit(
      "function (I[H, W]) -> (O) { O[x, y : 5, 5] = >(I[2 * x + i, 2 * y + j]), i < 3, j < 3; }",
      {testing::f32({11, 11})}, target(128, 16384));
  CHECK_FALSE(testing::has_tiled_kernel(pool.bytes));
  CHECK(plaidml::testing::spirv_val(pool.bytes).empty());
}

TEST_CASE("spirv tiled: the target key names every limit the tiles depend on") {
  SpirvTarget a = target(128, 16384), b = a;
  CHECK(a.key() == b.key());
  b.shared_memory_bytes = 32768;
  CHECK(a.key() != b.key());
  b = a;
  b.compute_units = 9;
  CHECK(a.key() != b.key());
  b = a;
  b.max_workgroup_size = 256;
  CHECK(a.key() != b.key());
}

}  // namespace
}  // namespace plaidml::jit
