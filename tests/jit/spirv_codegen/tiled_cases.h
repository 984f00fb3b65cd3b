// The contractions the tiled SPIR-V kernels are tested on (spirv_tiled_test.cc checks their
// modules with spirv-val, spirv_tiled_lavapipe.cc runs them on lavapipe): a matmul in both
// layouts, fused epilogues, a padded NHWC convolution (uniform and per-point guards), ragged
// extents, a 7x7 stride-2 stem (its short reduction loops merged), a max aggregation, a k-only
// tile, and the padded convolution with inf and NaN weights (its zero-filled padding must fall
// back to the reference's terms: 0 * inf is NaN where the reference has no term). Also how a
// test sees that the tiled path was taken (the module declares Workgroup arrays and barriers)
// and whether a module computes in 64-bit integers, and the target they run for.
#pragma once

#include <cstdint>
#include <optional>
#include <spirv/unified1/spirv.hpp11>
#include <string>
#include <vector>

#include "core/types/shape.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "support/tensors.h"

namespace plaidml::jit::testing {

struct TiledCase {
  std::string name;
  std::string tile;
  std::vector<Shape> shapes;
  int nonfinite_input = -1;  // a float input that case_inputs gives inf, -inf and NaN elements
  // The comparison's, where the default is too tight for the number of terms.
  std::optional<plaidml::testing::Tolerance> tolerance;
};

// The case's random inputs (seeds seed, seed + 1, ...), its nonfinite input with
// plant_nonfinite's elements.
inline std::vector<HostTensor> case_inputs(const TiledCase& c, uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    inputs.push_back(plaidml::testing::random_tensor(c.shapes[i], seed + i));
  }
  if (c.nonfinite_input >= 0) {
    plaidml::testing::plant_nonfinite(inputs[static_cast<size_t>(c.nonfinite_input)]);
  }
  return inputs;
}

inline Shape f32(std::vector<int64_t> dims) { return Shape(DType::F32, std::move(dims)); }

// A Vulkan device with these limits and every optional integer and float feature the tiled
// cases need.
inline SpirvTarget tiled_target(int max_workgroup_size, int64_t shared_memory_bytes,
                                int compute_units) {
  SpirvTarget t;
  t.device_name = "test";
  t.max_workgroup_size = max_workgroup_size;
  t.shared_memory_bytes = shared_memory_bytes;
  t.compute_units = compute_units;
  t.int8 = t.int16 = t.int64 = t.float64 = t.float_controls = true;
  return t;
}

inline std::vector<TiledCase> tiled_cases() {
  const std::string matmul =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  return {
      {"matmul", matmul, {f32({64, 48}), f32({48, 40})}},
      {"matmul ragged 67x45x33", matmul, {f32({67, 45}), f32({45, 33})}},
      {"matmul transposed A",
       "function (A[K, M], B[K, N]) -> (C) { C[i, j : M, N] = +(A[k, i] * B[k, j]); }",
       {f32({13, 7}), f32({13, 31})}},
      {"matmul with a fused bias and relu",
       "function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
       "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
       "  R = relu(C + Bias);\n"
       "}",
       {f32({37, 29}), f32({29, 41}), f32({41})}},
      {"padded 3x3 conv NHWC",
       "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
       "  O[n, x, y, co : N, H, W, CO] = +(I[n, x + i - 1, y + j - 1, c] * F[i, j, c, co]);\n"
       "}",
       {f32({2, 9, 11, 8}), f32({3, 3, 8, 12})}},
      {"padded 3x3 conv NHWC with inf and NaN weights",
       "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
       "  O[n, x, y, co : N, H, W, CO] = +(I[n, x + i - 1, y + j - 1, c] * F[i, j, c, co]);\n"
       "}",
       {f32({2, 9, 11, 8}), f32({3, 3, 8, 12})},
       1},
      {"7x7 stride-2 stem conv over 3 channels (merged reduction loops)",
       "function (I[N, H, W, C], F[KH, KW, C, CO]) -> (O) {\n"
       "  O[n, x, y, co : N, (H + 1) / 2, (W + 1) / 2, CO] =\n"
       "      +(I[n, 2 * x + i - 3, 2 * y + j - 3, c] * F[i, j, c, co]);\n"
       "}",
       {f32({2, 23, 30, 3}), f32({7, 7, 3, 16})},
       -1,
       plaidml::testing::Tolerance{1e-5, 1e-5}},  // 147 terms, FMA-contracted
      {"max-plus product (max aggregation)",
       "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = >(A[i, k] + B[k, j]); }",
       {f32({20, 30}), f32({30, 18})}},
      {"matrix-vector product (a k-only tile)",
       "function (A[M, K], X[K]) -> (Y) { Y[i : M] = +(A[i, k] * X[k]); }",
       {f32({70, 33}), f32({33})}},
      {"i32 matmul", matmul, {Shape(DType::I32, {19, 24}), Shape(DType::I32, {24, 21})}},
      {"f16 matmul", matmul, {Shape(DType::F16, {33, 40}), Shape(DType::F16, {40, 20})}},
      {"i8 matmul", matmul, {Shape(DType::I8, {17, 32}), Shape(DType::I8, {32, 25})}},
  };
}

// Calls f(opcode, operands) for each instruction of an artifact's modules (bytes: their
// little-endian words, back to back).
template <typename F>
void for_each_instruction(const std::vector<uint8_t>& bytes, F f) {
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i) {
    for (size_t j = 0; j < 4; ++j) words[i] |= uint32_t{bytes[i * 4 + j]} << (8 * j);
  }
  for (size_t at = 5; at < words.size();) {
    if (words[at] == spv::MagicNumber) {  // the next kernel's module: skip its header
      at += 5;
      continue;
    }
    uint32_t count = words[at] >> spv::WordCountShift;
    if (count == 0 || at + count > words.size()) return;
    auto opcode = static_cast<spv::Op>(words[at] & spv::OpCodeMask);
    f(opcode, std::vector<uint32_t>(words.begin() + at + 1, words.begin() + at + count));
    at += count;
  }
}

// Whether a module stages through shared memory: a Workgroup OpVariable and an
// OpControlBarrier, which only the tiled kernels emit.
inline bool has_tiled_kernel(const std::vector<uint8_t>& bytes) {
  bool workgroup = false, barrier = false;
  for_each_instruction(bytes, [&](spv::Op opcode, const std::vector<uint32_t>& operands) {
    if (opcode == spv::Op::OpVariable && operands.size() >= 3) {
      workgroup |= operands[2] == static_cast<uint32_t>(spv::StorageClass::Workgroup);
    }
    barrier |= opcode == spv::Op::OpControlBarrier;
  });
  return workgroup && barrier;
}

// Whether a module declares a 64-bit integer type or the Int64 capability.
inline bool uses_int64(const std::vector<uint8_t>& bytes) {
  bool found = false;
  for_each_instruction(bytes, [&](spv::Op opcode, const std::vector<uint32_t>& operands) {
    found |= opcode == spv::Op::OpTypeInt && operands.size() >= 2 && operands[1] == 64;
    found |= opcode == spv::Op::OpCapability && !operands.empty() &&
             operands[0] == static_cast<uint32_t>(spv::Capability::Int64);
  });
  return found;
}

}  // namespace plaidml::jit::testing
