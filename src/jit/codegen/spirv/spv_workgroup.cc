// Workgroup arrays shared by a module's kernels (spv_workgroup.h).
#include "jit/codegen/spirv/spv_workgroup.h"

#include <algorithm>

#include <fmt/format.h>

namespace plaidml::jit::spirv {

Id WorkgroupArena::array(Id value_type, int64_t end) {
  Array& a = arrays_[value_type];
  if (a.variable == 0) a.variable = b_.new_id();  // declared later, once its length is known
  a.length = std::max(a.length, end);
  return a.variable;
}

void WorkgroupArena::declare() {
  int n = 0;
  for (const auto& [value_type, a] : arrays_) {
    Id type = b_.type_array(value_type, static_cast<uint32_t>(std::max<int64_t>(a.length, 1)));
    b_.declare_variable(a.variable, b_.type_pointer(spv::StorageClass::Workgroup, type),
                        spv::StorageClass::Workgroup);
    b_.name(a.variable, fmt::format("workgroup{}", n++));
  }
}

}  // namespace plaidml::jit::spirv
