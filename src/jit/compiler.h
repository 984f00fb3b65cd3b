// The compiler: a bound program becomes a Plan that a device can run, in four steps:
//   lower (jit/lower) -> loop passes (jit/passes) -> codegen for the device's artifact format
//   (or the artifact cache, jit/cache/artifact_cache.h) -> load on the device.
// A plan compiled before, in this process or another, is made from its plan entry instead
// (jit/plan_store.h): only the load runs.
// The Plan is immutable and may be run from many threads at once: per-run state (temporary
// buffers) belongs to the caller.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/base/status.h"
#include "core/ir/bind.h"
#include "devices/device.h"
#include "jit/codegen/artifact.h"
#include "jit/cache/artifact_cache.h"
#include "jit/kernel_table.h"
#include "jit/lower/lower.h"
#include "jit/memory_plan.h"
#include "jit/plan_record.h"
#include "jit/plan_store.h"
#include "jit/runtime.h"

namespace plaidml::jit {

class CompiledPlan : public Plan {
 public:
  // The plan of `record`, with the artifact's code loaded on `device` (the artifact's kernels
  // are those the record's calls index).
  static Expected<std::shared_ptr<const CompiledPlan>> create(
      PlanRecord record, const Artifact& artifact, std::shared_ptr<devices::Device> device,
      int device_index);

  const std::vector<Shape>& input_shapes() const override { return record_.input_shapes; }
  const std::vector<Shape>& output_shapes() const override { return record_.output_shapes; }
  int kernel_count() const override { return static_cast<int>(record_.calls.size()); }
  int device() const override { return device_index_; }
  const MemoryFigures& memory() const override { return record_.memory; }
  const MemoryPlan& memory_plan() const { return record_.memory_plan; }

  // An arena for one execute (MemoryPlan): a free one the plan keeps, or new blocks from
  // `allocate`; give it back with release_arena after the execute's last kernel has finished.
  using Arena = std::vector<std::shared_ptr<Buffer>>;
  Expected<Arena> acquire_arena(
      const std::function<Expected<std::shared_ptr<Buffer>>(uint64_t bytes)>& allocate) const;
  void release_arena(Arena arena) const;

  const std::vector<BufferSlot>& slots() const { return record_.slots; }
  // The compiled kernels (identical kernels of the program once: jit/kernel_table.h) and the
  // launches of an execute, in order, each naming its kernel and its argument slots.
  const std::vector<KernelEntry>& kernels() const { return kernels_; }
  const std::vector<KernelCall>& calls() const { return record_.calls; }
  // Per launch, parallel to calls(): what profiles say of it.
  const std::vector<LaunchInfo>& launch_info() const { return record_.launch_info; }
  // nullptr when the program needs no kernel.
  const devices::Executable* executable() const { return executable_.get(); }
  const std::shared_ptr<devices::Device>& device_handle() const { return device_; }

 private:
  PlanRecord record_;
  std::vector<KernelEntry> kernels_;
  mutable std::mutex arenas_mutex_;
  mutable std::vector<Arena> free_arenas_;
  std::shared_ptr<devices::Device> device_;
  std::unique_ptr<devices::Executable> executable_;
  int device_index_ = 0;
};

// device_index: the device's position in Runtime::devices(), recorded in the plan.
// artifacts: where generated code is looked up before code generation runs and stored after
// (nullptr: always generate). Lowering and the loop passes always run: their output is the key.
// Errors: kUnsupported when the device accepts no artifact format this build can generate;
// lowering, codegen and load errors as those steps report them.
Expected<std::shared_ptr<const CompiledPlan>> compile(
    const ir::BoundProgram& bound, const std::shared_ptr<devices::Device>& device,
    int device_index, ArtifactCache* artifacts = nullptr);

// The plan of `program` at `input_shapes`: from a plan entry of `plans` when one matches (then
// nothing is bound, lowered or scheduled, and the code comes from `artifacts`), else bound and
// compiled as compile() does, and the entry written. Dumps of passes or code (PLAIDML_DUMP)
// bypass the plan entries, so that what they print runs. Errors: bind's, then compile()'s.
Expected<std::shared_ptr<const CompiledPlan>> compile_program(
    const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
    const std::shared_ptr<devices::Device>& device, int device_index, ArtifactCache* artifacts,
    PlanStore* plans);

}  // namespace plaidml::jit
