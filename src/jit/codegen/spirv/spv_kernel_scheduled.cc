// Scheduled GPU kernels (spv_kernel.h) emitted as SPIR-V: the work-item coordinates from
// LocalInvocationId / WorkgroupId, the workgroup arrays as Workgroup variables of this module
// (it holds this kernel alone, spirv_codegen.h, so no driver charges it for another kernel's
// arrays), then the loop IR as written. The schedule is the kernel's own
// (jit/codegen/gpu/gpu_kernel.h); nothing is decided here.
#include <fmt/format.h>

#include "jit/codegen/spirv/spv_kernel.h"

namespace plaidml::jit::spirv {

using spv::Op;

namespace {

// Binds the reserved coordinate variables: u32 ids, never negative, as values of the index type
// (zero-extended into i64: SpvEmitter::widen says why).
void bind_coordinates(const gpu::GpuKernel& k, SpvEmitter& e, SpvBuilder& b, Builtins& builtins) {
  const std::array<Id, 3> local = builtins.load(spv::BuiltIn::LocalInvocationId);
  const std::array<Id, 3> group = builtins.load(spv::BuiltIn::WorkgroupId);
  const Id i32 = b.type_int(32, true);
  auto value = [&](Id u32) {
    Id v = b.op(Op::OpBitcast, i32, {u32});
    return e.index32() ? v : e.widen(v, /*non_negative=*/true);
  };
  for (int d = 0; d < 3; ++d) {
    e.bind_value(gpu::local_id(d), value(local[static_cast<size_t>(d)]));
    e.bind_value(gpu::group_id(d), value(group[static_cast<size_t>(d)]));
  }
  if (k.subgroups > 0) {
    e.bind_value(gpu::subgroup_id(), value(builtins.load_scalar(spv::BuiltIn::SubgroupId)));
    e.bind_value(gpu::subgroup_lane(),
                 value(builtins.load_scalar(spv::BuiltIn::SubgroupLocalInvocationId)));
  }
}

void declare_arrays(const gpu::GpuKernel& k, SpvEmitter& e, SpvBuilder& b) {
  std::vector<SpvEmitter::WorkgroupVar> vars;
  for (const gpu::WorkgroupArray& a : k.arrays) {
    Id element = a.stored() ? e.scalar().storage_type(a.dtype) : e.scalar().value_type(a.dtype);
    int64_t length = a.elements;
    if (a.vectors()) {  // 16-byte vectors of the storage form
      element = b.type_uvec4();
      length = a.elements * SpvScalar::storage_bytes(a.dtype) / 16;
    }
    Id array = b.type_array(element, static_cast<uint32_t>(length));
    Id var = b.global_variable(b.type_pointer(spv::StorageClass::Workgroup, array),
                               spv::StorageClass::Workgroup);
    b.name(var, fmt::format("{}_{}", k.kernel.name, a.name));
    vars.push_back({var, a.dtype, a.form});
  }
  e.set_workgroup_arrays(std::move(vars));
}

}  // namespace

Expected<LaunchDims> emit_scheduled_kernel(const gpu::GpuKernel& k, const SpirvTarget& target,
                                           SpvEmitter& emitter, SpvBuilder& b,
                                           Builtins& builtins) {
  declare_arrays(k, emitter, b);
  Id fn = b.begin_function();
  emitter.scoped([&] {
    bind_coordinates(k, emitter, b, builtins);
    // Top-level statements share the function's scope.
    for (const auto& s : k.kernel.body->body) emitter.stmt(*s);
  });
  b.op_void(Op::OpReturn, {});
  b.end_function();
  emitter.set_workgroup_arrays({});
  if (!emitter.status().is_ok()) {
    return emitter.status().with_context(fmt::format("Vulkan kernel '{}': ", k.kernel.name));
  }
  std::vector<Id> interface = {builtins.get(spv::BuiltIn::LocalInvocationId),
                               builtins.get(spv::BuiltIn::WorkgroupId)};
  if (k.subgroups > 0) {
    interface.push_back(builtins.get_scalar(spv::BuiltIn::SubgroupId));
    interface.push_back(builtins.get_scalar(spv::BuiltIn::SubgroupLocalInvocationId));
  }
  declare_entry(b, fn, k.kernel.name, interface, k.launch, target);
  return k.launch;
}

}  // namespace plaidml::jit::spirv
