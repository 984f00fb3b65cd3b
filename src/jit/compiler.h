// The compiler: a bound program becomes a Plan that a device can run, in four steps:
//   lower (jit/lower) -> loop passes (jit/passes) -> codegen for the device's artifact format
//   (or the artifact cache, jit/cache/artifact_cache.h) -> load on the device.
// A plan compiled before, in this process or another, is made from its plan entry instead
// (jit/plan_store.h): only the load runs. Kernels an earlier compile of the context loaded are
// launched again, not generated (jit/kernel_library.h).
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
#include "jit/cache/artifact_cache.h"
#include "jit/cache/form_index.h"
#include "jit/codegen/artifact.h"
#include "jit/kernel_library.h"
#include "jit/kernel_table.h"
#include "jit/lower/lower.h"
#include "jit/memory_plan.h"
#include "jit/plan_record.h"
#include "jit/plan_store.h"
#include "jit/runtime.h"

namespace plaidml::jit {

class CompiledPlan : public Plan {
 public:
  // The plan of `record`, launching `kernels` (parallel to record.kernels, which calls index).
  static Expected<std::shared_ptr<const CompiledPlan>> create(
      PlanRecord record, std::vector<LoadedKernel> kernels, std::shared_ptr<devices::Device> device,
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
  // The compiled kernels (identical kernels of the program once: jit/kernel_table.h), each in
  // the executable it was loaded in, and the launches of an execute, in order, each naming its
  // kernel and its argument slots.
  const std::vector<LoadedKernel>& kernels() const { return kernels_; }
  const std::vector<KernelCall>& calls() const { return record_.calls; }
  // Per launch, parallel to calls(): what profiles say of it.
  const std::vector<LaunchInfo>& launch_info() const { return record_.launch_info; }
  const std::shared_ptr<devices::Device>& device_handle() const { return device_; }

 private:
  PlanRecord record_;
  std::vector<LoadedKernel> kernels_;
  mutable std::mutex arenas_mutex_;
  mutable std::vector<Arena> free_arenas_;
  std::shared_ptr<devices::Device> device_;
  int device_index_ = 0;
};

// The caches a compile consults and fills; each may be null (none).
struct CompileCaches {
  // Generated code by key, in memory and on disk (jit/cache/artifact_cache.h).
  ArtifactCache* artifacts = nullptr;
  // Plan entries on disk (jit/plan_store.h); used only beside `artifacts`.
  PlanStore* plans = nullptr;
  // The kernels loaded on each device, by form (jit/kernel_library.h).
  KernelLibrary* library = nullptr;
  // Where earlier processes' kernels are, by form (jit/cache/form_index.h); used only beside
  // `artifacts`.
  FormIndex* forms = nullptr;
};

// The plan of `program` at `input_shapes` on `device` (its position in Runtime::devices(),
// recorded in the plan): from a plan entry when one matches (then nothing is bound, lowered or
// scheduled, and the kernels come from the library or the artifact cache), else bound,
// lowered and scheduled, its kernels taken from the library where it has them and generated
// (or found in the artifact cache) where not, and the entry written. Dumps of passes or code
// (PLAIDML_DUMP) bypass the plan entries and the library, so that what they print runs.
// Errors: kUnsupported when the device accepts no artifact format this build can generate;
// binding, lowering, codegen and load errors as those steps report them.
Expected<std::shared_ptr<const CompiledPlan>> compile_program(
    const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
    const std::shared_ptr<devices::Device>& device, int device_index, const CompileCaches& caches);

}  // namespace plaidml::jit
