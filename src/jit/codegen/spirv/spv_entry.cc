// Builtins and entry points (spv_entry.h).
#include "jit/codegen/spirv/spv_entry.h"

namespace plaidml::jit::spirv {

Id Builtins::get(spv::BuiltIn which) {
  auto it = vars_.find(which);
  if (it != vars_.end()) return it->second;
  Id uvec3 = b_.type_vector(b_.type_int(32, false), 3);
  Id var = b_.global_variable(b_.type_pointer(spv::StorageClass::Input, uvec3),
                              spv::StorageClass::Input);
  b_.decorate(var, spv::Decoration::BuiltIn, {static_cast<uint32_t>(which)});
  vars_[which] = var;
  return var;
}

std::array<Id, 3> Builtins::load(spv::BuiltIn which) {
  Id u32 = b_.type_int(32, false);
  Id ids = b_.op(spv::Op::OpLoad, b_.type_vector(u32, 3), {get(which)});
  std::array<Id, 3> out;
  for (uint32_t d = 0; d < 3; ++d) out[d] = b_.op(spv::Op::OpCompositeExtract, u32, {ids, d});
  return out;
}

Id Builtins::get_scalar(spv::BuiltIn which) {
  auto it = vars_.find(which);
  if (it != vars_.end()) return it->second;
  b_.capability(spv::Capability::GroupNonUniform);
  Id var = b_.global_variable(b_.type_pointer(spv::StorageClass::Input, b_.type_int(32, false)),
                              spv::StorageClass::Input);
  b_.decorate(var, spv::Decoration::BuiltIn, {static_cast<uint32_t>(which)});
  vars_[which] = var;
  return var;
}

Id Builtins::load_scalar(spv::BuiltIn which) {
  return b_.op(spv::Op::OpLoad, b_.type_int(32, false), {get_scalar(which)});
}

void declare_entry(SpvBuilder& b, Id fn, const std::string& name, const std::vector<Id>& interface,
                   const LaunchDims& launch, const SpirvTarget& target) {
  b.entry_point(fn, name, interface);
  b.local_size(fn, launch.workgroup[0], launch.workgroup[1], launch.workgroup[2]);
  b.name(fn, name);
  if (target.float_controls) {
    b.capability(spv::Capability::SignedZeroInfNanPreserve);
    b.extension("SPV_KHR_float_controls");
    b.execution_mode(fn, spv::ExecutionMode::SignedZeroInfNanPreserve, {32});
    if (target.float64) b.execution_mode(fn, spv::ExecutionMode::SignedZeroInfNanPreserve, {64});
  }
}

}  // namespace plaidml::jit::spirv
