// emit_spirv: one SPIR-V module for a lowered program (see spirv_codegen.h).
#include "jit/codegen/spirv/spirv_codegen.h"

#include <cstring>
#include <set>

#include <fmt/format.h>

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

// Slot k: a StorageBuffer variable at set 0, binding k, of struct { T data[]; }.
std::vector<Id> declare_slots(const LoweredProgram& lowered, spirv::SpvScalar& scalar,
                              SpvBuilder& b) {
  std::vector<Id> vars;
  for (size_t k = 0; k < lowered.slots.size(); ++k) {
    DType t = lowered.slots[k].shape.dtype;
    int bytes = spirv::SpvScalar::storage_bytes(t);
    if (bytes == 1) {
      b.capability(spv::Capability::StorageBuffer8BitAccess);
      b.extension("SPV_KHR_8bit_storage");
    }
    if (bytes == 2) {
      b.capability(spv::Capability::StorageBuffer16BitAccess);
      b.extension("SPV_KHR_16bit_storage");
    }
    Id block = b.type_buffer_block(scalar.storage_type(t), bytes);
    Id ptr = b.type_pointer(spv::StorageClass::StorageBuffer, block);
    Id var = b.global_variable(ptr, spv::StorageClass::StorageBuffer);
    b.decorate(var, spv::Decoration::DescriptorSet, {0});
    b.decorate(var, spv::Decoration::Binding, {static_cast<uint32_t>(k)});
    b.name(var, fmt::format("s{}", k));
    vars.push_back(var);
  }
  return vars;
}

}  // namespace

Expected<Artifact> emit_spirv(const LoweredProgram& lowered, const SpirvTarget& target) {
  PLAIDML_TRY(check_dtypes(lowered, target));
  SpvBuilder b;
  b.capability(spv::Capability::Shader);
  spirv::SpvScalar scalar(b);
  std::vector<Id> slot_vars = declare_slots(lowered, scalar, b);
  spirv::Builtins builtins(b);
  spirv::SpvEmitter emitter(lowered, scalar, slot_vars);
  Artifact artifact;
  artifact.format = kSpirvFormat;
  for (const loop::Kernel& kernel : lowered.kernels) {
    PLAIDML_ASSIGN(std::optional<LaunchDims> tiled,
                   spirv::emit_tiled_kernel(kernel, target, emitter, b, builtins));
    LaunchDims dims;
    if (tiled) {
      dims = *tiled;
    } else {
      PLAIDML_ASSIGN(dims, spirv::emit_kernel(kernel, target, emitter, b, builtins));
    }
    KernelEntry entry;
    entry.symbol = kernel.name;
    entry.parallel_extent = loop::parallel_extent(kernel);
    entry.work = kernel.work;
    entry.grid = dims.grid;
    entry.workgroup = dims.workgroup;
    artifact.kernels.push_back(std::move(entry));
  }
  std::vector<uint32_t> words = b.finish();
  artifact.bytes.resize(words.size() * sizeof(uint32_t));
  std::memcpy(artifact.bytes.data(), words.data(), artifact.bytes.size());  // little-endian host
  return artifact;
}

}  // namespace plaidml::jit
