// Loop-IR kernels to SPIR-V for Vulkan compute (artifact format "spirv"), emitted word by word
// with the builder of spirv_builder.h over the enums of spirv-headers: no shaderc or glslang.
//
// The artifact is one SPIR-V module per kernel, in kernel order, back to back (the bytes are
// their 32-bit words, little-endian; a module starts where the instruction stream meets the
// magic word 0x07230203, which no instruction starts with). Each module holds one GLCompute
// entry point named after its kernel (KernelEntry::symbol) with its LocalSize execution mode
// (KernelEntry::workgroup), and only what that kernel uses: a driver that compiles a whole
// module for each pipeline (NVIDIA's, it seems: DenseNet-121's 371 kernels in one module took
// 175 s to a first result) compiles each kernel once. Parameter i of a kernel is the storage
// buffer at descriptor set 0, binding i (a runtime array of the slot's element type). SPIR-V 1.3
// entry-point interfaces hold only Input/Output variables, so each lists just the builtins it
// reads (GlobalInvocationId; a tiled kernel LocalInvocationId and WorkgroupId). Element types:
// bool as u8, f16/bf16 as u16 bit patterns computed in f32, so Float16 is never needed. No
// push constants: sizes are constants in the code. KernelEntry::grid is the vkCmdDispatch
// group count.
//
// Register-form contractions become tiled kernels (spv_kernel.h: Workgroup arrays, barriers,
// a register block per invocation) planned as for OpenCL (jit/codegen/gpu); other kernels are
// band-mapped, one invocation per band iteration.
//
// Targets Vulkan 1.1 / SPIR-V 1.3 with the capabilities the kernel's dtypes need (Int8,
// Int16, Int64, Float16, Float64 and the 8/16-bit storage ones); a dtype the device cannot do
// is kUnsupported naming the kernel and the dtype. Every module passes
// `spirv-val --target-env vulkan1.1`.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "jit/codegen/artifact.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/codegen/gpu/gpu_target.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

inline constexpr const char* kSpirvFormat = "spirv";

// What SPIR-V generation knows of a Vulkan device (jit/compiler.cc fills it from DeviceInfo).
struct SpirvTarget {
  std::string device_name;
  int max_workgroup_size = 128;
  int64_t shared_memory_bytes = 16384;
  int compute_units = 1;
  bool int8 = false, int16 = false, int64 = false, float16 = false, float64 = false;
  // VK_KHR_shader_float_controls' shaderSignedZeroInfNanPreserveFloat32/64 (core in Vulkan
  // 1.2): every entry point then declares SignedZeroInfNanPreserve, without which drivers may
  // fold IEEE inf/NaN/-0 away (lavapipe gives 0 for x / (x - x)).
  bool float_controls = false;
  // VK_KHR_cooperative_matrix (with the Vulkan memory model and shaderFloat16): the shapes the
  // device multiplies at subgroup scope, and the subgroup size that needs known.
  std::vector<MatrixShape> matrix_shapes;
  int subgroup_size = 0;

  // The limits the tile search (jit/codegen/gpu/tile_search.h) works within.
  GpuTarget limits() const {
    GpuTarget t;
    t.device_name = device_name;
    t.max_workgroup_size = max_workgroup_size;
    t.local_memory_bytes = shared_memory_bytes;
    t.compute_units = compute_units;
    t.fp16 = float16;
    t.fp64 = float64;
    // The staged tiles are u16 Workgroup arrays: Int16 as well as Float16.
    if (subgroup_size > 0 && float16 && int16) t.matrix_shapes = matrix_shapes;
    t.subgroup_size = subgroup_size;
    return t;
  }
  // Goes into cache keys: everything above that changes the generated code.
  std::string key() const {
    return device_name + "|wg" + std::to_string(max_workgroup_size) + "|sm" +
           std::to_string(shared_memory_bytes) + "|cu" + std::to_string(compute_units) +
           (int8 ? "|i8" : "") + (int16 ? "|i16" : "") + (int64 ? "|i64" : "") +
           (float16 ? "|f16" : "") + (float64 ? "|f64" : "") + (float_controls ? "|fc" : "") +
           (matrix_shapes.empty() ? std::string()
                                  : "|sg" + std::to_string(subgroup_size) + "|mm" +
                                        matrix_shapes_text(matrix_shapes));
  }
};

// What a Vulkan dispatch can address: 65535 workgroups per dimension, what Vulkan guarantees
// (maxComputeWorkGroupCount; the target does not say more).
gpu::DispatchLimits spirv_dispatch_limits();

// `hints`: tile choices that replace the cost model's (gpu_schedule.h).
Expected<Artifact> emit_spirv(const LoweredProgram& lowered, const SpirvTarget& target,
                              const gpu::TileHints& hints = {});

}  // namespace plaidml::jit
