// What GPU code generation knows of a device: its limits, from the plugin's device info
// (jit/compiler.cc fills it for OpenCL; the SPIR-V generator derives one from SpirvTarget).
// Tile sizes and workgroup shapes are chosen from these numbers, never hard-coded for one GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types/dtype.h"

namespace plaidml::jit {

// A cooperative-matrix multiply-add the device runs: an m x k matrix of `input` elements times
// a k x n one, added to an m x n f32 accumulator. At subgroup scope (Vulkan's
// VK_KHR_cooperative_matrix; workgroup 0) m, n and k are the one shape's; at workgroup scope
// (VK_NV_cooperative_matrix2's flexible dimensions; workgroup: the workgroup's invocations,
// exactly) they are granularities, every multiple of them a shape, and the driver stages the
// operands through shared memory itself.
struct MatrixShape {
  DType input = DType::F16;
  int m = 16, n = 16, k = 16;
  int workgroup = 0;
  bool operator==(const MatrixShape& o) const {
    return input == o.input && m == o.m && n == o.n && k == o.k && workgroup == o.workgroup;
  }
};

// "f16:16x16x16,f16:16x8x16,f16:16x16x16@256" (the plugin ABI's matrix_shapes text; "@N":
// workgroup scope with N invocations) as shapes; items of other forms or dtypes plaidml does not
// run through matrices are skipped.
std::vector<MatrixShape> parse_matrix_shapes(const std::string& text);
std::string matrix_shapes_text(const std::vector<MatrixShape>& shapes);

struct GpuTarget {
  std::string device_name;          // for messages
  int max_workgroup_size = 256;     // threads per workgroup
  int64_t local_memory_bytes = 32768;  // shared bytes per workgroup
  int compute_units = 1;            // SMs / CUs: how many workgroups run at once, roughly
  bool fp16 = false;                // cl_khr_fp16 (f16 arithmetic; storage works everywhere)
  bool fp64 = false;                // cl_khr_fp64
  int subgroup_size = 0;            // 0: unknown
  // Cooperative matrices the emitter may use (only SPIR-V targets have them), with the
  // subgroup size they need known.
  std::vector<MatrixShape> matrix_shapes;
  // Goes into cache keys: everything above that changes the generated code.
  std::string key() const {
    return device_name + "|wg" + std::to_string(max_workgroup_size) + "|lm" +
           std::to_string(local_memory_bytes) + "|cu" + std::to_string(compute_units) +
           (fp16 ? "|fp16" : "") + (fp64 ? "|fp64" : "") +
           (matrix_shapes.empty() ? std::string()
                                  : "|sg" + std::to_string(subgroup_size) + "|mm" +
                                        matrix_shapes_text(matrix_shapes));
  }
};

}  // namespace plaidml::jit
