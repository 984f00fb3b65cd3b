// A scheduled GPU kernel: loop IR in which the schedule (jit/codegen/gpu/gpu_schedule.h) is
// already written out, so that the OpenCL C and SPIR-V emitters only print it. Beside the
// loop IR of any kernel it holds three things only GPU kernels have:
//   - the work-item coordinates, as variables of reserved names (local_id, group_id) that each
//     emitter binds to its builtins (get_local_id, LocalInvocationId, ...);
//   - workgroup arrays (OpenCL __local, SPIR-V Workgroup storage), named by negative slots in
//     loads and stores (array i is slot workgroup_slot(i));
//   - barriers (loop::StmtKind::kBarrier), only in workgroup-uniform control flow.
// The launch is fixed: every workgroup has exactly `launch.workgroup` work-items (the emitters
// declare it: reqd_work_group_size, LocalSize), and the grid covers the kernel's iterations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jit/codegen/gpu/band_launch.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::gpu {

// How a workgroup array holds its elements.
enum class ArrayForm {
  kValues,   // as the dtype's value type (f16/bf16 as f32)
  kStorage,  // in the dtype's storage form (f16/bf16 as 16-bit patterns, as in buffers), as
             // cooperative-matrix loads read it; loads and stores convert
  kStorageVectors,  // as 16-byte vectors of the storage form (eight f16), as 16-byte copies
                    // fill it
};
inline bool stored_form(ArrayForm f) { return f != ArrayForm::kValues; }
inline bool vector_form(ArrayForm f) { return f == ArrayForm::kStorageVectors; }

struct WorkgroupArray {
  std::string name;  // unique within the kernel, a C identifier
  DType dtype = DType::F32;
  int64_t elements = 0;  // elements, whatever the form
  ArrayForm form = ArrayForm::kValues;
  bool stored() const { return stored_form(form); }
  bool vectors() const { return vector_form(form); }
};

struct GpuKernel {
  loop::Kernel kernel;  // name, reads, writes, work and origins of the lowered kernel
  // The lowered kernel's parameters (loop::parameters), in its order: the launch binds buffers
  // in that order, whatever order the scheduled body first names them in.
  std::vector<int> params;
  std::vector<WorkgroupArray> arrays;
  LaunchDims launch;
  // Kernels with cooperative-matrix statements (loop::MatrixOp) run `subgroups` subgroups of
  // `subgroup_size` work-items per workgroup, and may read subgroup_id() and subgroup_lane();
  // 0 elsewhere.
  int subgroups = 0, subgroup_size = 0;
};

// A scheduled kernel for `lowered` with its name, slots, work, origins and parameters; the
// caller writes its body, arrays and launch.
inline GpuKernel scheduled_from(const loop::Kernel& lowered) {
  GpuKernel out;
  out.kernel.name = lowered.name;
  out.kernel.reads = lowered.reads;
  out.kernel.writes = lowered.writes;
  out.kernel.work = lowered.work;
  out.kernel.origins = lowered.origins;
  out.params = loop::parameters(lowered);
  return out;
}

// The reserved variables of work-item coordinates along dimension d (0, 1, 2): the index of
// the work-item in its workgroup and of the workgroup in the grid (I64 values, never negative).
inline std::string local_id(int d) { return "@lid" + std::to_string(d); }
inline std::string group_id(int d) { return "@group" + std::to_string(d); }
// The subgroup's index in its workgroup and the work-item's in its subgroup (matrix kernels).
inline std::string subgroup_id() { return "@subgroup"; }
inline std::string subgroup_lane() { return "@lane"; }

constexpr int workgroup_slot(size_t array) { return -1 - static_cast<int>(array); }
constexpr bool is_workgroup_slot(int slot) { return slot < 0; }
constexpr size_t workgroup_array_index(int slot) { return static_cast<size_t>(-1 - slot); }

}  // namespace plaidml::jit::gpu
