// emit_spirv: one SPIR-V module for a lowered program (see spirv_codegen.h).
#include "jit/codegen/spirv/spirv_codegen.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/base/logging.h"
#include "jit/codegen/spirv/spv_kernel.h"

namespace plaidml::jit {

namespace {

using spirv::Id;
using spirv::SpvBuilder;

void collect(const loop::Expr& e, std::set<DType>& out) {
  out.insert(e.dtype);
  for (const auto& a : e.args) {
    if (a) collect(*a, out);
  }
}

void collect(const loop::Stmt& s, std::set<DType>& out) {
  for (const loop::ExprPtr& e : {s.lo, s.hi, s.cond, s.index, s.value}) {
    if (e) collect(*e, out);
  }
  if (s.kind == loop::StmtKind::kFor) out.insert(DType::I64);
  for (const auto& b : s.body) collect(*b, out);
}

// The device feature a dtype needs, computed (values) or in a buffer (storage: bool is u8,
// f16/bf16 are u16); nullptr when none.
const char* missing_feature(DType t, bool storage, const SpirvTarget& target) {
  switch (t) {
    case DType::Bool: return storage && !target.int8 ? "shaderInt8" : nullptr;
    case DType::F16:
    case DType::BF16: return storage && !target.int16 ? "shaderInt16" : nullptr;
    case DType::I8:
    case DType::U8: return target.int8 ? nullptr : "shaderInt8";
    case DType::I16:
    case DType::U16: return target.int16 ? nullptr : "shaderInt16";
    case DType::I64:
    case DType::U64: return target.int64 ? nullptr : "shaderInt64";
    case DType::F64: return target.float64 ? nullptr : "shaderFloat64";
    default: return nullptr;
  }
}

Status check_dtypes(const LoweredProgram& lowered, const SpirvTarget& target) {
  for (const auto& k : lowered.kernels) {
    std::set<DType> values, stored;
    collect(*k.body, values);
    for (int slot : k.reads) stored.insert(lowered.slots[slot].shape.dtype);
    for (int slot : k.writes) stored.insert(lowered.slots[slot].shape.dtype);
    for (bool storage : {true, false}) {
      for (DType t : storage ? stored : values) {
        if (const char* feature = missing_feature(t, storage, target)) {
          return make_error(StatusCode::kUnsupported,
                            "kernel '{}' uses {}, which {} does not support (no {})", k.name,
                            dtype_name(t), target.device_name, feature);
        }
      }
    }
  }
  return Status::ok();
}

// The StorageBuffer variables of a module's kernel's parameters: parameter i of element type T
// is a variable at set 0, binding i, of struct { T data[]; } (each pipeline binds only what its
// entry point uses: per-kernel binding).
class ParamVariables {
 public:
  ParamVariables(const LoweredProgram& lowered, spirv::SpvScalar& scalar, SpvBuilder& b)
      : lowered_(lowered), scalar_(scalar), b_(b) {}

  // The read-only view of the kernel's parameter for `slot` as 16-byte vectors (uvec4), at the
  // same binding: the parameter variable's memory, read through another type. No Restrict:
  // the two variables alias (both only read).
  Id vector_view(const loop::Kernel& kernel, int slot) {
    const std::vector<int> params = loop::parameters(kernel);
    const auto at = std::find(params.begin(), params.end(), slot);
    const uint32_t binding = static_cast<uint32_t>(at - params.begin());
    auto [it, added] = views_.emplace(binding, 0);
    if (!added) return it->second;
    Id uvec4 = b_.type_uvec4();
    Id block = b_.type_buffer_block(uvec4, 16);
    Id var = b_.global_variable(b_.type_pointer(spv::StorageClass::StorageBuffer, block),
                                spv::StorageClass::StorageBuffer);
    b_.decorate(var, spv::Decoration::DescriptorSet, {0});
    b_.decorate(var, spv::Decoration::Binding, {binding});
    b_.decorate(var, spv::Decoration::NonWritable);
    b_.name(var, fmt::format("p{}_vectors", binding));
    it->second = var;
    return var;
  }

  // Per slot of the program, the variable kernel's parameter for it (0 for other slots).
  std::vector<Id> of(const loop::Kernel& kernel) {
    std::vector<Id> vars(lowered_.slots.size(), 0);
    std::vector<int> params = loop::parameters(kernel);
    for (size_t i = 0; i < params.size(); ++i) {
      DType t = lowered_.slots.at(static_cast<size_t>(params[i])).shape.dtype;
      bool written = std::find(kernel.writes.begin(), kernel.writes.end(), params[i]) !=
                     kernel.writes.end();
      vars[static_cast<size_t>(params[i])] = variable(static_cast<uint32_t>(i), t, written);
    }
    return vars;
  }

 private:
  // Restrict (no other binding reaches its memory, as OpenCL C's `restrict` parameters) and,
  // for a buffer the kernel only reads, NonWritable: the driver may then keep its loads in
  // registers or reorder them past the kernel's stores.
  Id variable(uint32_t binding, DType t, bool written) {
    auto [it, added] = vars_.emplace(std::make_pair(binding, t), 0);
    if (!added) return it->second;
    int bytes = spirv::SpvScalar::storage_bytes(t);
    if (bytes == 1) {
      b_.capability(spv::Capability::StorageBuffer8BitAccess);
      b_.extension("SPV_KHR_8bit_storage");
    }
    if (bytes == 2) {
      b_.capability(spv::Capability::StorageBuffer16BitAccess);
      b_.extension("SPV_KHR_16bit_storage");
    }
    Id block = b_.type_buffer_block(scalar_.storage_type(t), bytes);
    Id ptr = b_.type_pointer(spv::StorageClass::StorageBuffer, block);
    Id var = b_.global_variable(ptr, spv::StorageClass::StorageBuffer);
    b_.decorate(var, spv::Decoration::DescriptorSet, {0});
    b_.decorate(var, spv::Decoration::Binding, {binding});
    b_.decorate(var, spv::Decoration::Restrict);
    if (!written) b_.decorate(var, spv::Decoration::NonWritable);
    b_.name(var, fmt::format("p{}_{}", binding, dtype_name(t)));
    it->second = var;
    return var;
  }

  const LoweredProgram& lowered_;
  spirv::SpvScalar& scalar_;
  SpvBuilder& b_;
  std::map<std::pair<uint32_t, DType>, Id> vars_;
  std::map<uint32_t, Id> views_;
};

// One kernel's own module: its entry point, the storage buffers of its parameters, its
// Workgroup arrays and what they need, nothing of the other kernels.
struct KernelModule {
  std::vector<uint32_t> words;
  LaunchDims dims;
};

Expected<KernelModule> emit_kernel_module(const LoweredProgram& lowered,
                                          const loop::Kernel& kernel,
                                          const std::optional<gpu::GpuKernel>& scheduled_kernel,
                                          const std::vector<const gpu::GpuKernel*>& scheduled,
                                          const SpirvTarget& target) {
  SpvBuilder b;
  b.capability(spv::Capability::Shader);
  spirv::SpvScalar scalar(b);
  ParamVariables params(lowered, scalar, b);
  spirv::Builtins builtins(b);
  spirv::SpvEmitter emitter(lowered, scalar, scheduled);
  emitter.set_slot_vars(params.of(kernel));
  emitter.set_vector_views([&](int slot) { return params.vector_view(kernel, slot); });
  KernelModule m;
  if (scheduled_kernel) {
    PLAIDML_ASSIGN(m.dims,
                   spirv::emit_scheduled_kernel(*scheduled_kernel, target, emitter, b, builtins));
  } else {
    PLAIDML_ASSIGN(m.dims, spirv::emit_kernel(kernel, target, emitter, b, builtins));
  }
  m.words = b.finish();
  return m;
}

}  // namespace

gpu::DispatchLimits spirv_dispatch_limits() {
  gpu::DispatchLimits dispatch;
  dispatch.max_groups = 65535;
  return dispatch;
}

Expected<Artifact> emit_spirv(const LoweredProgram& lowered, const SpirvTarget& target,
                              const gpu::TileHints& hints) {
  PLAIDML_TRY(check_dtypes(lowered, target));
  // The schedule is decided here, once; the kernel emitters only print it.
  const gpu::GpuSchedule schedule =
      gpu::schedule_program(lowered, target.limits(), spirv_dispatch_limits(), hints);
  const std::vector<const gpu::GpuKernel*> scheduled = schedule.scheduled_kernels();
  Artifact artifact;
  artifact.format = kSpirvFormat;
  for (size_t i = 0; i < lowered.kernels.size(); ++i) {
    const loop::Kernel& kernel = lowered.kernels[i];
    PLAIDML_ASSIGN(KernelModule m,
                   emit_kernel_module(lowered, kernel, schedule.kernels[i], scheduled, target));
    if (schedule.kernels[i] && schedule.kernels[i]->subgroups > 0) {
      logger().debug(
          "Vulkan kernel '{}' on {}: cooperative matrices ({} subgroups of {}; the "
          "device's shapes {})",
          kernel.name, target.device_name, schedule.kernels[i]->subgroups,
          schedule.kernels[i]->subgroup_size, matrix_shapes_text(target.matrix_shapes));
    }
    KernelEntry entry;
    entry.symbol = kernel.name;
    entry.parallel_extent = loop::parallel_extent(kernel);
    entry.work = kernel.work;
    entry.grid = m.dims.grid;
    entry.workgroup = m.dims.workgroup;
    artifact.kernels.push_back(std::move(entry));
    const size_t at = artifact.bytes.size();
    artifact.bytes.resize(at + m.words.size() * sizeof(uint32_t));
    std::memcpy(artifact.bytes.data() + at, m.words.data(), m.words.size() * sizeof(uint32_t));
  }
  return artifact;
}

}  // namespace plaidml::jit
