#include "jit/compiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "core/base/env.h"
#include "core/base/hash.h"
#include "core/base/logging.h"
#include "core/ir/constant.h"
#include "jit/cache/artifact_key.h"
#include "jit/codegen/llvm/llvm_codegen.h"
#include "jit/codegen/opencl/opencl_codegen.h"
#ifdef PLAIDML_HAVE_SPIRV
#include "jit/codegen/spirv/spirv_codegen.h"
#endif
#include "jit/codegen/gpu/split_k.h"
#include "jit/gpu_codegen.h"
#include "jit/host_caches.h"
#include "jit/passes/pipeline.h"
#include "jit/plan_kernels.h"
#include "jit/tile_measure.h"

namespace plaidml::jit {
namespace {

constexpr const char* kCpuFormat = "elf-object";

// The generated formats, in the order generate() prefers them.
std::string generated_formats() {
#ifdef PLAIDML_HAVE_SPIRV
  return fmt::format("{}, {}, {}", kCpuFormat, kOpenClFormat, kSpirvFormat);
#else
  return fmt::format("{}, {}", kCpuFormat, kOpenClFormat);
#endif
}

bool wants_gpu_lowering(const devices::Device& device) {
  return !device.info().accepts(kCpuFormat);
}

const TargetDesc& cpu_target() {
  static const TargetDesc target = host_target();  // asks LLVM about the CPU once
  return target;
}

// The artifact format generate() produces for the device, and the target it generates for:
// the CPU's ELF objects first, else OpenCL C, else SPIR-V (in builds with the Vulkan device).
Expected<ArtifactTarget> choose_target(const devices::Device& device) {
  const devices::DeviceInfo& info = device.info();
  ArtifactTarget t;
  t.llvm_version = llvm_version();
  if (info.accepts(kCpuFormat)) {
    t.format = kCpuFormat;
    t.description = cpu_target().key();
  } else if (info.accepts(kOpenClFormat)) {
    t.format = kOpenClFormat;
    t.description = gpu_target(info).key();
#ifdef PLAIDML_HAVE_SPIRV
  } else if (info.accepts(kSpirvFormat)) {
    t.format = kSpirvFormat;
    t.description = spirv_target(info).key();
#endif
  } else {
    std::string formats;
    for (const auto& f : info.formats) formats += (formats.empty() ? "" : ", ") + f;
    return make_error(StatusCode::kUnsupported,
                      "device {} accepts artifact formats [{}]; this build generates {}",
                      device.id(), formats, generated_formats());
  }
  return t;
}

// Code generation for the format choose_target() picked; for a GPU, with the tiles the
// measured search chose (its records kept in `artifacts`, which may be null).
Expected<Artifact> generate(const LoweredProgram& lowered, devices::Device& device,
                            const ArtifactTarget& target, ArtifactCache* artifacts) {
  // The CPU device's compute units are the context's threads: the kernels compile on as many.
  if (target.format == kCpuFormat) {
    return emit_llvm_object(lowered, cpu_target(), std::max(1, device.info().compute_units));
  }
  bool gpu = target.format == kOpenClFormat;
#ifdef PLAIDML_HAVE_SPIRV
  gpu = gpu || target.format == kSpirvFormat;
#endif
  if (!gpu) return Status(StatusCode::kInternal, "no generator for " + target.format);
  const GpuCodegen codegen = gpu_codegen(device.info(), target.format);
  const gpu::TileHints hints = measured_tiles(lowered, device, codegen, target, artifacts,
                                              tile_search_options(device.info()));
  Expected<Artifact> artifact = codegen.emit(lowered, hints);
  if (!artifact) return artifact.status().with_context(fmt::format("device {}: ", device.id()));
  return artifact;
}

// The CPU passes schedule for the host's vector unit; GPU code keeps the plain loop nest.
passes::PipelineOptions pipeline_options(const devices::Device& device) {
  passes::PipelineOptions options = passes::default_pipeline_options();
  if (!device.info().accepts(kCpuFormat)) return options;
  options.cpu = passes::cpu_target_for(cpu_target().vector_bits, device.info().compute_units);
  options.cpu.l1_bytes = host_caches().l1_bytes;
  options.cpu.l2_bytes = host_caches().l2_bytes;
  return options;
}

// What profiles say of each launch: its origins and the bytes of the slots it touches.
std::vector<LaunchInfo> launch_info(const LoweredProgram& lowered) {
  std::vector<LaunchInfo> info;
  for (const loop::Kernel& k : lowered.kernels) {
    LaunchInfo i{k.origins, 0};
    std::vector<int> slots = k.reads;
    slots.insert(slots.end(), k.writes.begin(), k.writes.end());
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    for (int s : slots) i.bytes += lowered.slots[static_cast<size_t>(s)].shape.byte_size();
    info.push_back(std::move(i));
  }
  return info;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* source_name(ArtifactCache::Source source) {
  switch (source) {
    case ArtifactCache::Source::kGenerated: return "generated";
    case ArtifactCache::Source::kMemory: return "memory cache hit";
    case ArtifactCache::Source::kDisk: return "disk cache hit";
  }
  return "?";
}

// PLAIDML_DUMP=llvm or =opencl (alone or in a list) asks code generation to print its output,
// which a cache hit would skip: such compiles bypass the artifact cache.
bool dump_asks_for_code() {
  std::string value = "," + env_string("PLAIDML_DUMP", "") + ",";
  return value.find(",llvm,") != std::string::npos || value.find(",opencl,") != std::string::npos;
}

// The artifact of `code` from the cache (under `key`), or generated (and then cached).
Expected<ArtifactCache::Lookup> artifact_for(const LoweredProgram& code, devices::Device& device,
                                             const ArtifactTarget& target, const ArtifactKey& key,
                                             ArtifactCache* artifacts) {
  auto make = [&] { return generate(code, device, target, artifacts); };
  if (artifacts == nullptr) {
    PLAIDML_ASSIGN(Artifact artifact, make());
    return ArtifactCache::Lookup{std::make_shared<const Artifact>(std::move(artifact)),
                                 ArtifactCache::Source::kGenerated};
  }
  if (dump_asks_for_code()) return artifacts->generate_uncached(make);
  return artifacts->get_or_generate(key, make);
}

// Whether PLAIDML_DUMP asks to see passes or code: then what they print must run, and no plan
// entry or library kernel stands in for it.
bool dumps_anything() { return dump_asks_for_code() || passes::default_pipeline_options().dump; }

// GPU code reads its kernels' shapes; a CPU kernel serves every extent of its parallel loop.
KernelForms kernel_forms(const devices::Device& device) {
  return wants_gpu_lowering(device) ? KernelForms::kShapes : KernelForms::kShapeClasses;
}

// Lowering, the loop passes and the kernel table: everything before code generation.
Expected<KernelTable> schedule(const ir::BoundProgram& bound, const devices::Device& device,
                               LoweredProgram* lowered_out) {
  LowerOptions options;
  options.gpu = wants_gpu_lowering(device);
  PLAIDML_ASSIGN(LoweredProgram lowered, lower(bound, options));
  PLAIDML_TRY(passes::run_pipeline(lowered, pipeline_options(device)));
  if (options.gpu) gpu::split_long_reductions(lowered, std::max(1, device.info().compute_units));
  KernelTable table = build_kernel_table(lowered, kernel_forms(device));
  *lowered_out = std::move(lowered);
  return table;
}

// Everything of the plan but its kernels (record_kernels adds them).
PlanRecord make_record(const ir::BoundProgram& bound, LoweredProgram lowered,
                       std::vector<KernelCall> calls) {
  PlanRecord r;
  r.input_shapes = bound.input_shapes;
  r.output_shapes = bound.output_shapes;
  r.launch_info = launch_info(lowered);
  r.memory_plan = plan_memory(lowered);
  r.memory = memory_figures(lowered, r.memory_plan);
  for (const BufferSlot& slot : lowered.slots) {
    bool constant = slot.role == BufferSlot::Role::kConstant;
    r.constant_digests.push_back(
        constant ? bound.program->nodes.at(static_cast<size_t>(slot.index)).constant->digest : 0);
  }
  r.slots = std::move(lowered.slots);
  r.calls = std::move(calls);
  return r;
}

// "12 from the kernel library, 3 generated": where a plan's kernels came from.
std::string kernels_source(const PlanKernels& kernels) {
  std::string text = fmt::format("{} from the kernel library, {} through the form index",
                                 kernels.from_library, kernels.from_disk);
  if (!kernels.artifact) return text;
  return fmt::format("{}, {} {}", text, kernels.artifact->artifact->kernels.size(),
                     source_name(kernels.artifact->source));
}

// Points a plan entry's constant slots at the program's constant nodes of the same digest and
// shape (the key's program text names constants by digest, so they are there; their node ids
// depend on how the program was built). False when one is missing.
bool bind_constant_slots(PlanRecord& record, const ir::Program& program) {
  std::map<std::pair<uint64_t, std::string>, int> nodes;
  for (size_t id = 0; id < program.nodes.size(); ++id) {
    const ir::Node& n = program.nodes[id];
    if (n.kind != ir::NodeKind::kConstant || !n.constant) continue;
    nodes.emplace(ir::constant_identity(*n.constant), static_cast<int>(id));
  }
  for (size_t s = 0; s < record.slots.size(); ++s) {
    BufferSlot& slot = record.slots[s];
    if (slot.role != BufferSlot::Role::kConstant) continue;
    const Shape& shape = slot.packing.packed() ? slot.packing.source : slot.shape;
    auto it = nodes.find({record.constant_digests[s], shape.to_string()});
    if (it == nodes.end()) return false;
    slot.index = it->second;
  }
  return true;
}

}  // namespace

Expected<std::shared_ptr<const CompiledPlan>> CompiledPlan::create(
    PlanRecord record, std::vector<LoadedKernel> kernels, std::shared_ptr<devices::Device> device,
    int device_index) {
  if (record.kernels.size() != kernels.size()) {
    return make_error(StatusCode::kInternal, "the plan launches {} kernels; {} are loaded",
                      record.kernels.size(), kernels.size());
  }
  auto plan = std::make_shared<CompiledPlan>();
  plan->record_ = std::move(record);
  plan->kernels_ = std::move(kernels);
  plan->device_ = std::move(device);
  plan->device_index_ = device_index;
  return std::shared_ptr<const CompiledPlan>(std::move(plan));
}

Expected<CompiledPlan::Arena> CompiledPlan::acquire_arena(
    const std::function<Expected<std::shared_ptr<Buffer>>(uint64_t bytes)>& allocate) const {
  {
    std::lock_guard<std::mutex> lock(arenas_mutex_);
    if (!free_arenas_.empty()) {
      Arena arena = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return arena;
    }
  }
  Arena arena;
  for (uint64_t bytes : record_.memory_plan.block_bytes) {
    PLAIDML_ASSIGN(auto block, allocate(bytes));
    arena.push_back(std::move(block));
  }
  return arena;
}

void CompiledPlan::release_arena(Arena arena) const {
  std::lock_guard<std::mutex> lock(arenas_mutex_);
  free_arenas_.push_back(std::move(arena));
}

namespace {

// Schedules `bound` and takes its kernels from the library or generates them; gives the plan's
// record too (for a plan entry).
Expected<std::shared_ptr<const CompiledPlan>> compile_recorded(
    const ir::BoundProgram& bound, const std::shared_ptr<devices::Device>& device, int device_index,
    const CompileCaches& caches, PlanRecord* record_out) {
  auto start = std::chrono::steady_clock::now();
  LoweredProgram lowered;
  PLAIDML_ASSIGN(KernelTable table, schedule(bound, *device, &lowered));
  double lower_s = seconds_since(start);
  PLAIDML_ASSIGN(ArtifactTarget target, choose_target(*device));
  auto make_artifact = [&](const LoweredProgram& code,
                           const std::vector<Sha256Digest>& forms) -> Expected<KeyedArtifact> {
    ArtifactKey key = make_kernels_key(forms, target);
    PLAIDML_ASSIGN(ArtifactCache::Lookup found,
                   artifact_for(code, *device, target, key, caches.artifacts));
    return KeyedArtifact{std::move(found), std::move(key.text)};
  };
  bool dumps = dumps_anything();
  KernelLibrary* library = dumps ? nullptr : caches.library;
  std::optional<StoredKernels> stored;
  if (!dumps && caches.forms && caches.forms->enabled() && caches.artifacts) {
    stored.emplace(*caches.forms, *caches.artifacts, target, *device);
  }
  PLAIDML_ASSIGN(PlanKernels kernels, table_kernels(table, *device, library,
                                                    stored ? &*stored : nullptr, make_artifact));
  double codegen_s = seconds_since(start) - lower_s;
  size_t launches = table.calls.size();
  PlanRecord record = make_record(bound, std::move(lowered), std::move(table.calls));
  record_kernels(kernels.loaded, table.forms, record);
  if (record_out) *record_out = record;
  std::string source = kernels_source(kernels);
  PLAIDML_ASSIGN(auto plan, CompiledPlan::create(std::move(record), std::move(kernels.loaded),
                                                 device, device_index));
  logger().debug(
      "compiled '{}' for {}: {} launches of {} kernels ({}; lower+passes {:.1f} ms, codegen or "
      "cache {:.1f} ms, total {:.1f} ms)",
      bound.program->name, device->id(), launches, plan->kernels().size(), source, lower_s * 1e3,
      codegen_s * 1e3, seconds_since(start) * 1e3);
  return plan;
}

// The plan from the entry under `key`, or nullptr when there is none that fits the program.
// The entry's kernels come from the library or the artifact cache; when that lost one of its
// artifacts, the entry is unused and the compile that follows writes it again. Running out of
// memory is an error, not an unusable entry: compiling the program again would need more.
Expected<std::shared_ptr<const CompiledPlan>> restore_plan(
    const ArtifactKey& key, const std::shared_ptr<const ir::Program>& program,
    const std::shared_ptr<devices::Device>& device, int device_index, const CompileCaches& caches) {
  auto start = std::chrono::steady_clock::now();
  std::optional<PlanRecord> record = caches.plans->read(key);
  if (!record) return std::shared_ptr<const CompiledPlan>();
  auto unused = [&](const std::string& why) {
    caches.plans->count(false);
    logger().debug("plan entry {} unused: {}", to_hex(key.digest, 8), why);
    return std::shared_ptr<const CompiledPlan>();
  };
  if (!bind_constant_slots(*record, *program)) return unused("its constants are not the program's");
  Expected<std::optional<PlanKernels>> kernels =
      recorded_kernels(*record, *device, caches.library, *caches.artifacts);
  if (!kernels && kernels.status().code() == StatusCode::kOutOfMemory) return kernels.status();
  if (!kernels) return unused(kernels.status().message());
  if (!*kernels) return unused("an artifact it names is gone from the kernel cache");
  std::string source = kernels_source(**kernels);
  PLAIDML_ASSIGN(auto plan, CompiledPlan::create(std::move(*record), std::move((*kernels)->loaded),
                                                 device, device_index));
  caches.plans->count(true);
  logger().debug("compiled '{}' for {} from its plan entry: {} launches, kernels {} ({:.1f} ms)",
                 program->name, device->id(), plan->calls().size(), source,
                 seconds_since(start) * 1e3);
  return plan;
}

}  // namespace

Expected<std::shared_ptr<const CompiledPlan>> compile_program(
    const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
    const std::shared_ptr<devices::Device>& device, int device_index, const CompileCaches& caches) {
  PlanStore* plans = caches.plans;
  if (plans == nullptr || !plans->enabled() || caches.artifacts == nullptr || dumps_anything()) {
    PLAIDML_ASSIGN(ir::BoundProgram bound, ir::bind(program, input_shapes));
    return compile_recorded(bound, device, device_index, caches, nullptr);
  }
  PLAIDML_ASSIGN(ArtifactTarget target, choose_target(*device));
  ArtifactKey key = make_plan_key(*program, input_shapes, target, pipeline_options(*device).cpu);
  PLAIDML_ASSIGN(std::shared_ptr<const CompiledPlan> restored,
                 restore_plan(key, program, device, device_index, caches));
  if (restored) return restored;
  PLAIDML_ASSIGN(ir::BoundProgram bound, ir::bind(program, input_shapes));
  PlanRecord record;
  PLAIDML_ASSIGN(auto plan, compile_recorded(bound, device, device_index, caches, &record));
  if (!record.kernels.empty()) plans->write(key, record);
  return plan;
}

}  // namespace plaidml::jit
