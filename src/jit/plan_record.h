// A compiled plan as plain data (everything of CompiledPlan but the loaded code), and its bytes
// for the disk cache's plan entries (jit/plan_store.h).
//
// A warm start in a new process binds, lowers and schedules nothing: the plan entry gives the
// slots, launches, memory plan and profile names, and names the artifacts its kernels are in by
// their key texts, which the artifact cache then serves (a plan's kernels may come from several:
// those that earlier compiles generated, jit/kernel_library.h). Decoding checks every length and
// index, so a damaged payload is an error, never a crash or a launch out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "jit/kernel_table.h"
#include "jit/lower/lower.h"
#include "jit/memory_plan.h"
#include "jit/runtime.h"

namespace plaidml::jit {

// The version of this encoding; part of every plan key (jit/plan_store.h).
// 2: packed constants; 3: kernels from several artifacts, launch extents per call.
inline constexpr uint32_t kPlanCodecVersion = 3;

// What profiles say of one launch.
struct LaunchInfo {
  std::vector<std::string> origins;  // loop::Kernel::origins
  uint64_t bytes = 0;                // of the slots it reads and writes
};

// A kernel the plan's calls index: kernel `index` of artifact `artifact` (an index into
// PlanRecord::artifact_keys), of the form whose digest is `form` (jit/kernel_table.h).
struct RecordedKernel {
  int artifact = 0;
  int index = 0;
  Sha256Digest form{};
};

struct PlanRecord {
  std::vector<Shape> input_shapes;
  std::vector<Shape> output_shapes;
  std::vector<BufferSlot> slots;
  // Per slot: the digest of a constant slot's data (ir::ConstantData::digest), else 0. A plan
  // entry's constant slots are pointed at the program's constant nodes of these digests (node
  // ids depend on how the program was built: imported, or loaded from a program file).
  std::vector<uint64_t> constant_digests;
  std::vector<KernelCall> calls;
  std::vector<LaunchInfo> launch_info;  // parallel to calls
  MemoryPlan memory_plan;
  MemoryFigures memory;
  std::vector<RecordedKernel> kernels;     // which calls index
  std::vector<std::string> artifact_keys;  // key texts (jit/cache/artifact_key.h)
};

std::string encode_plan_record(const PlanRecord& record);

// kIoError naming what is malformed or inconsistent ("call 3: argument 9 of 8 slots").
Expected<PlanRecord> decode_plan_record(std::string_view payload);

}  // namespace plaidml::jit
