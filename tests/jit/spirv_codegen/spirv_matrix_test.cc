// The cooperative-matrix kernels of the SPIR-V generator (jit/codegen/gpu/matrix_kernel.h)
// without a device: which contractions take them, what their modules declare, and (where the
// installed spirv-val knows SPV_KHR_cooperative_matrix: SPIRV-Tools 2023.4 and later) that
// each module is valid. Their results are checked on a device that has cooperative matrices
// (the conformance suite's f16 contractions on NVIDIA's Vulkan driver); CI's lavapipe has none
// and runs the same cases through the tiled kernels.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/gpu_lowering.h"
#include "jit/loop/printer.h"
#include "spirv_val.h"

namespace plaidml::jit {
namespace {

constexpr uint32_t kOpTypeCooperativeMatrix = 4456, kOpMulAdd = 4459, kOpMemoryModel = 14;
constexpr uint32_t kOpConstant = 43, kOpFConvert = 115, kScopeWorkgroup = 2;

SpirvTarget matrix_target() {
  SpirvTarget t;
  t.device_name = "tensor-core device";
  t.max_workgroup_size = 1024;
  t.shared_memory_bytes = 49152;
  t.compute_units = 132;
  t.int8 = t.int16 = t.int64 = t.float16 = t.float64 = t.float_controls = true;
  t.subgroup_size = 32;
  t.matrix_shapes = parse_matrix_shapes("f16:16x8x16,f16:16x16x16");
  return t;
}

const char* const kMatmul =
    "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";

std::vector<uint32_t> words(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < 4; ++j) out[i] |= uint32_t{bytes[i * 4 + j]} << (8 * j);
  }
  return out;
}

// How often an opcode starts an instruction of a module (its header skipped), and the operands
// of its last occurrence.
int count_op(const std::vector<uint8_t>& module, uint32_t opcode,
             std::vector<uint32_t>* operands) {
  const std::vector<uint32_t> w = words(module);
  int n = 0;
  for (size_t at = 5; at < w.size();) {
    const uint32_t count = w[at] >> 16;
    if (count == 0) break;
    if ((w[at] & 0xffff) == opcode) {
      ++n;
      if (operands) operands->assign(w.begin() + long(at) + 1, w.begin() + long(at + count));
    }
    at += count;
  }
  return n;
}

// The value of the 32-bit OpConstant `id` of a module (0 when there is none).
uint32_t constant_value(const std::vector<uint8_t>& module, uint32_t id) {
  const std::vector<uint32_t> w = words(module);
  for (size_t at = 5; at < w.size();) {
    const uint32_t count = w[at] >> 16;
    if (count == 0) break;
    if ((w[at] & 0xffff) == kOpConstant && count == 4 && w[at + 2] == id) return w[at + 3];
    at += count;
  }
  return 0;
}

bool names(const std::vector<uint8_t>& module, const std::string& text) {
  return std::string(module.begin(), module.end()).find(text) != std::string::npos;
}

// Every module of the artifact valid for Vulkan 1.2 where the validator knows the extension.
void check_valid(const Artifact& artifact) {
  if (!plaidml::testing::spirv_val_knows_cooperative_matrix()) {
    MESSAGE("spirv-val predates SPV_KHR_cooperative_matrix: module validity not checked");
    return;
  }
  const std::string errors = plaidml::testing::spirv_val(artifact.bytes, "vulkan1.2");
  CHECK_MESSAGE(errors.empty(), errors);
}

gpu::GpuSchedule schedule(const std::string& tile, const std::vector<Shape>& shapes,
                          const SpirvTarget& target) {
  LoweredProgram lowered = testing::lower_gpu(tile, shapes);
  gpu::DispatchLimits dispatch;
  dispatch.max_groups = 65535;
  return gpu::schedule_program(lowered, target.limits(), dispatch);
}

bool has_matrix_kernel(const gpu::GpuSchedule& s) {
  for (const auto& k : s.kernels) {
    if (k && k->subgroups > 0) return true;
  }
  return false;
}

TEST_CASE("spirv matrix: an f16 matmul becomes a cooperative-matrix kernel with 16x16x16 "
          "fragments, valid SPIR-V") {
  // Extents off every tile edge: 200 = 128 + 72 rows, 72 = 2 chunks + 8 of k, 136 columns.
  LoweredProgram lowered = testing::lower_gpu(
      kMatmul, {Shape(DType::F16, {200, 72}), Shape(DType::F16, {72, 136})});
  SpirvTarget target = matrix_target();
  target.compute_units = 4;  // 2 x 2 tiles of 128 x 128 keep it busy
  auto artifact = emit_spirv(lowered, target);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  const auto modules = plaidml::testing::spirv_modules(artifact->bytes);
  REQUIRE(modules.size() == 1);
  CHECK(count_op(modules[0], kOpTypeCooperativeMatrix, nullptr) == 3);  // A, B, accumulator
  // 2 x 4 subgroups of 2 x 4 fragments (4 compute units: 2 x 1 tiles of 128 x 256 are too
  // few, so 64 x 256), 2 k steps per chunk: 16 multiply-adds a chunk.
  CHECK(count_op(modules[0], kOpMulAdd, nullptr) == 16);
  // OpMemoryModel Logical Vulkan: the extension needs the Vulkan memory model.
  std::vector<uint32_t> memory_model;
  REQUIRE(count_op(modules[0], kOpMemoryModel, &memory_model) == 1);
  CHECK(memory_model == std::vector<uint32_t>{0, 3});
  const KernelEntry& k = artifact->kernels[0];
  CHECK(k.workgroup[0] == 256);
  CHECK(k.grid[0] == 1);  // ceil(136 / 256)
  CHECK(k.grid[1] == 4);  // ceil(200 / 64)
  check_valid(*artifact);
}

// The kernel's matrix statements, as loop::to_string prints them.
std::string matrix_text(const gpu::GpuSchedule& s) {
  REQUIRE(has_matrix_kernel(s));
  return loop::to_string(s.kernels[0]->kernel);
}

TEST_CASE("spirv matrix: operands on fragment edges are read straight from their buffers, "
          "row- or column-major; the k loop has no barrier") {
  const SpirvTarget t = matrix_target();
  // 144 x 48 x 80: every extent a multiple of 16, none of the 128 x 128 tile.
  const gpu::GpuSchedule s =
      schedule(kMatmul, {Shape(DType::F16, {144, 48}), Shape(DType::F16, {48, 80})}, t);
  const std::string text = matrix_text(s);
  CAPTURE(text);
  REQUIRE(s.kernels[0]->arrays.size() == 1);  // the epilogue's scratch only
  CHECK(text.find("barrier") == text.find("barrier", text.find("[0, 0] ->")));
  // A: row stride K = 48, past row 144 moved to row 0; B: row stride N = 80, past column 80.
  CHECK(text.find(". (48, 1)] < (144, 0)") != std::string::npos);
  CHECK(text.find(". (80, 1)] < (0, 80)") != std::string::npos);
  // W[n, k]: B is column-major with stride K.
  const std::string transposed = matrix_text(schedule(
      "function (X[M, K], W[N, K]) -> (C) { C[i, j : M, N] = +(X[i, k] * W[j, k]); }",
      {Shape(DType::F16, {48, 48}), Shape(DType::F16, {80, 48})}, t));
  CHECK(transposed.find(". (1, 48)] < (0, 80)") != std::string::npos);
  // A 1x1 convolution's batch, rows and columns walk its input as one flat m of stride CI.
  const std::string conv = matrix_text(schedule(
      "function (I[N, H, W, CI], F[CI, CO]) -> (O) { O[n, y, x, co : N, H, W, CO] = "
      "+(I[n, y, x, ci] * F[ci, co]); }",
      {Shape(DType::F16, {2, 4, 8, 48}), Shape(DType::F16, {48, 48})}, t));
  CHECK(conv.find(". (48, 1)] < (64, 0)") != std::string::npos);
  auto artifact = emit_spirv(testing::lower_gpu(kMatmul, {Shape(DType::F16, {144, 48}),
                                                          Shape(DType::F16, {48, 80})}),
                             t);
  REQUIRE(artifact.has_value());
  check_valid(*artifact);
  // An operand off the 8-element alignment (K = 36: rows start 72 bytes apart) is staged.
  CHECK(matrix_text(schedule(kMatmul, {Shape(DType::F16, {32, 48}), Shape(DType::F16, {48, 36})},
                             t))
            .find("w2[") != std::string::npos);
}

TEST_CASE("spirv matrix: where k is a chunk multiple, aligned operands are copied 16 bytes at "
          "a time, the next chunk fetched while this one is multiplied") {
  const SpirvTarget t = matrix_target();
  // 96 x 64 x 200: N = 200 is a multiple of 8, not of 16: the last fragment column is partly
  // past N (its columns read column 0 and are never stored).
  const gpu::GpuSchedule s =
      schedule(kMatmul, {Shape(DType::F16, {96, 64}), Shape(DType::F16, {64, 200})}, t);
  const std::string text = matrix_text(s);
  CAPTURE(text);
  const gpu::GpuKernel& k = *s.kernels[0];
  REQUIRE(k.arrays.size() == 3);
  CHECK(k.arrays[0].form == gpu::ArrayForm::kStorageVectors);
  CHECK(k.arrays[1].form == gpu::ArrayForm::kStorageVectors);
  CHECK(k.arrays[2].form == gpu::ArrayForm::kValues);
  // A: 64 rows (2 fragments along m: few tiles) of 32 k; B: 32 lines of k, 256 columns.
  CHECK(text.find("fetch 64x32 of s0[") != std::string::npos);
  CHECK(text.find("fetch 32x256 of s1[") != std::string::npos);
  CHECK(text.find("deposit 32x256 -> w1 / 264 by 256") != std::string::npos);
  // The fetch of the next chunk sits between the barriers, guarded by a uniform test.
  CHECK(text.find("if ((@k0 + 32) < 64)") != std::string::npos);
  // A transposed A (A[k, m]) is copied as k lines of m and read column-major.
  const std::string transposed = matrix_text(schedule(
      "function (A[K, M], B[K, N]) -> (C) { C[i, j : M, N] = +(A[k, i] * B[k, j]); }",
      {Shape(DType::F16, {64, 40}), Shape(DType::F16, {64, 48})}, t));
  CHECK(transposed.find("fetch 32x64 of s0[") != std::string::npos);
  CHECK(transposed.find("w0[0 + (((@subgroup / 4) * 32), 0) . (1, 72)]") != std::string::npos);
  for (const auto& shapes :
       {std::vector<Shape>{Shape(DType::F16, {96, 64}), Shape(DType::F16, {64, 200})},
        std::vector<Shape>{Shape(DType::F16, {256, 128}), Shape(DType::F16, {128, 256})}}) {
    auto artifact = emit_spirv(testing::lower_gpu(kMatmul, shapes), t);
    REQUIRE(artifact.has_value());
    check_valid(*artifact);
  }
}

TEST_CASE("spirv matrix: the loop IR of a matrix kernel stages, multiplies and runs the "
          "epilogue per fragment") {
  const gpu::GpuSchedule s = schedule(
      "function (A[M, K], B[K, N], Z[N]) -> (C) { T[i, j : M, N] = +(A[i, k] * B[k, j]); "
      "C = relu(T + Z); }",
      // K = 60: off the fragment edge, so both operands are staged.
      {Shape(DType::F16, {64, 60}), Shape(DType::F16, {60, 256}), Shape(DType::F16, {256})},
      matrix_target());
  REQUIRE(has_matrix_kernel(s));
  const gpu::GpuKernel& k = *s.kernels[0];
  const std::string text = loop::to_string(k.kernel);
  CAPTURE(text);
  // 64 x 256 is one tile of 128 x 256 for 132 compute units: 2 fragments along m, 4 along n.
  CHECK(text.find("matrix @frags 2x4 of 16x16x16 f16: zero") != std::string::npos);
  CHECK(text.find("matrix @frags 2x4 of 16x16x16 f16: += w0[") != std::string::npos);
  CHECK(text.find("matrix @frags 2x4 of 16x16x16 f16: [1, 3] -> w2[") != std::string::npos);
  REQUIRE(k.arrays.size() == 3);
  CHECK(k.arrays[0].stored());
  CHECK(k.arrays[0].elements == 64 * 40);   // BM x (BK + 8)
  CHECK(k.arrays[1].elements == 32 * 264);  // BK x (BN + 8)
  CHECK_FALSE(k.arrays[2].stored());
  CHECK(k.arrays[2].elements == 8 * 256);   // a 16 x 16 f32 fragment per subgroup
  CHECK(k.subgroups == 8);
  CHECK(k.subgroup_size == 32);
}

TEST_CASE("spirv matrix: batched and transposed f16 products take matrix kernels") {
  const SpirvTarget t = matrix_target();
  CHECK(has_matrix_kernel(schedule(
      "function (A[B, M, K], W[B, K, N]) -> (C) { C[b, i, j : B, M, N] = +(A[b, i, k] * W[b, k, "
      "j]); }",
      {Shape(DType::F16, {3, 40, 48}), Shape(DType::F16, {3, 48, 56})}, t)));
  CHECK(has_matrix_kernel(schedule(
      "function (X[M, K], W[N, K]) -> (C) { C[i, j : M, N] = +(X[i, k] * W[j, k]); }",
      {Shape(DType::F16, {40, 64}), Shape(DType::F16, {72, 64})}, t)));
}

TEST_CASE("spirv matrix: other contractions and devices keep the tiled kernels") {
  const SpirvTarget t = matrix_target();
  // f32 math never goes through f16 matrices.
  CHECK_FALSE(has_matrix_kernel(
      schedule(kMatmul, {Shape(DType::F32, {64, 64}), Shape(DType::F32, {64, 64})}, t)));
  // Mixed inputs, a max aggregation, a padded convolution's guards.
  CHECK_FALSE(has_matrix_kernel(
      schedule(kMatmul, {Shape(DType::F16, {64, 64}), Shape(DType::F32, {64, 64})}, t)));
  CHECK_FALSE(has_matrix_kernel(schedule(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = >(A[i, k] * B[k, j]); }",
      {Shape(DType::F16, {64, 64}), Shape(DType::F16, {64, 64})}, t)));
  CHECK_FALSE(has_matrix_kernel(schedule(
      "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) { O[n, y, x, co : N, H, W, CO] = "
      "+(I[n, y + ky - 1, x + kx - 1, c] * F[ky, kx, c, co]); }",
      {Shape(DType::F16, {1, 8, 8, 32}), Shape(DType::F16, {3, 3, 32, 32})}, t)));
  // A device without cooperative matrices, or whose subgroup size is unknown.
  SpirvTarget plain = t;
  plain.matrix_shapes.clear();
  CHECK_FALSE(has_matrix_kernel(
      schedule(kMatmul, {Shape(DType::F16, {64, 64}), Shape(DType::F16, {64, 64})}, plain)));
  SpirvTarget unknown = t;
  unknown.subgroup_size = 0;
  CHECK_FALSE(has_matrix_kernel(
      schedule(kMatmul, {Shape(DType::F16, {64, 64}), Shape(DType::F16, {64, 64})}, unknown)));
}

// A device with NVIDIA's workgroup-scope matrices as well (VK_NV_cooperative_matrix2).
SpirvTarget workgroup_target() {
  SpirvTarget t = matrix_target();
  t.matrix_shapes = parse_matrix_shapes("f16:16x16x16,f16:16x16x16@32,f16:32x32x16@256");
  return t;
}

TEST_CASE(
    "spirv matrix: with workgroup-scope matrices, a matmul on tile edges is one fragment "
    "per workgroup, read from and stored to the buffers, valid SPIR-V") {
  SpirvTarget t = workgroup_target();
  t.compute_units = 4;  // 2 x 2 tiles of 128 x 256 keep it busy
  LoweredProgram lowered =
      testing::lower_gpu(kMatmul, {Shape(DType::F16, {256, 128}), Shape(DType::F16, {128, 512})});
  const gpu::GpuSchedule s = gpu::schedule_program(lowered, t.limits(), spirv_dispatch_limits());
  const std::string text = matrix_text(s);
  CAPTURE(text);
  const gpu::GpuKernel& k = *s.kernels[0];
  CHECK(k.arrays.empty());
  CHECK(text.find("barrier") == std::string::npos);
  CHECK(text.find("matrix @frags 1x1 of 128x256x64 f16 per workgroup: zero") != std::string::npos);
  // Two k steps of 64 per chunk; A's rows K = 128 apart, B's N = 512.
  CHECK(text.find("for @k0 in [0, 128) step 128") != std::string::npos);
  CHECK(text.find(". (128, 1)] < (256, 0) * ") != std::string::npos);
  CHECK(text.find(". (512, 1)] < (0, 512) x2") != std::string::npos);
  // The sums converted to f16 and stored, rows N apart.
  CHECK(text.find("[0, 0] -> s2[") != std::string::npos);
  CHECK(text.find("/ 512 as f16") != std::string::npos);
  CHECK(k.subgroups == 8);
  CHECK(k.launch.workgroup[0] == 256);
  CHECK(k.launch.grid[0] == 2);  // 512 / 256
  CHECK(k.launch.grid[1] == 2);  // 256 / 128

  auto artifact = emit_spirv(lowered, t);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  const auto modules = plaidml::testing::spirv_modules(artifact->bytes);
  REQUIRE(modules.size() == 1);
  // A, B, the f32 accumulator and its f16 conversion, every one at workgroup scope.
  std::vector<uint32_t> type;
  CHECK(count_op(modules[0], kOpTypeCooperativeMatrix, &type) == 4);
  REQUIRE(type.size() == 6);
  CHECK(constant_value(modules[0], type[2]) == kScopeWorkgroup);
  CHECK(count_op(modules[0], kOpMulAdd, nullptr) == 2);
  CHECK(count_op(modules[0], kOpFConvert, nullptr) == 1);
  CHECK(names(modules[0], "SPV_NV_cooperative_matrix2"));
  CHECK(artifact->kernels[0].workgroup[0] == 256);
  check_valid(*artifact);
}

TEST_CASE(
    "spirv matrix: smaller workgroup-scope tiles fill the compute units; other kernels "
    "keep subgroup-scope fragments") {
  const SpirvTarget t = workgroup_target();
  auto text_of = [&](const std::string& tile, const std::vector<Shape>& shapes) {
    return matrix_text(schedule(tile, shapes, t));
  };
  // 1024 x 1024 on 132 compute units: 32 tiles of 128 x 256, 64 of 128 x 128, 128 of 64 x 128
  // (at most half the units idle).
  CHECK(text_of(kMatmul, {Shape(DType::F16, {1024, 256}), Shape(DType::F16, {256, 1024})})
            .find("of 64x128x64 f16 per workgroup") != std::string::npos);
  // K = 64: one step of 64 a chunk; K = 96: one of 32.
  CHECK(text_of(kMatmul, {Shape(DType::F16, {128, 64}), Shape(DType::F16, {64, 128})})
            .find("for @k0 in [0, 64) step 64") != std::string::npos);
  CHECK(text_of(kMatmul, {Shape(DType::F16, {128, 96}), Shape(DType::F16, {96, 128})})
            .find("of 64x64x32 f16 per workgroup") != std::string::npos);
  // Off the 64 x 64 tiles, k off 32, a fused epilogue: subgroup scope.
  for (const std::string& text :
       {text_of(kMatmul, {Shape(DType::F16, {200, 72}), Shape(DType::F16, {72, 136})}),
        text_of(kMatmul, {Shape(DType::F16, {128, 48}), Shape(DType::F16, {48, 128})}),
        text_of("function (A[M, K], B[K, N], Z[N]) -> (C) { T[i, j : M, N] = +(A[i, k] * "
                "B[k, j]); C = relu(T + Z); }",
                {Shape(DType::F16, {128, 64}), Shape(DType::F16, {64, 128}),
                 Shape(DType::F16, {128})})}) {
    CHECK(text.find("per workgroup") == std::string::npos);
    CHECK(text.find("of 16x16x16 f16") != std::string::npos);
  }
  // A workgroup larger than the device launches.
  SpirvTarget small = t;
  small.matrix_shapes = parse_matrix_shapes("f16:16x16x16,f16:16x16x16@2048");
  CHECK(matrix_text(
            schedule(kMatmul, {Shape(DType::F16, {128, 64}), Shape(DType::F16, {64, 128})}, small))
            .find("per workgroup") == std::string::npos);
}

TEST_CASE("spirv matrix: matrix shapes parse from the plugin's text; malformed items are "
          "skipped") {
  const std::vector<MatrixShape> shapes =
      parse_matrix_shapes("f16:16x16x16,bf16:16x8x16,f32:16x16x8,f16:16x16,f16:0x8x8,junk,"
                          "f16:16x16x16x2,f16:32x8x16");
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0] == MatrixShape{DType::F16, 16, 16, 16});
  CHECK(shapes[1] == MatrixShape{DType::BF16, 16, 8, 16});
  CHECK(shapes[2] == MatrixShape{DType::F16, 32, 8, 16});
  CHECK(matrix_shapes_text(shapes) == "f16:16x16x16,bf16:16x8x16,f16:32x8x16");
  CHECK(parse_matrix_shapes("").empty());
  // "@N": workgroup scope with N invocations; the other tails are skipped.
  const std::vector<MatrixShape> workgroup = parse_matrix_shapes(
      "f16:16x16x16@256,f16:16x16x16@,f16:16x16x16@0,f16:16x16x16@2x,f16:16x16x16junk,"
      "f16:16x16x16@-4");
  REQUIRE(workgroup.size() == 1);
  CHECK(workgroup[0] == MatrixShape{DType::F16, 16, 16, 16, 256});
  CHECK_FALSE(workgroup[0] == MatrixShape{DType::F16, 16, 16, 16});
  CHECK(matrix_shapes_text(workgroup) == "f16:16x16x16@256");
  // The shapes change the generated code, so they are part of the cache key.
  SpirvTarget plain = matrix_target();
  plain.matrix_shapes.clear();
  CHECK(plain.key() != matrix_target().key());
  CHECK(workgroup_target().key() != matrix_target().key());
}

}  // namespace
}  // namespace plaidml::jit
