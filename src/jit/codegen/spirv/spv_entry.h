// Entry-point plumbing shared by the kernel emitters of the SPIR-V generator: the compute
// builtins (declared once per module, on first use) and the entry point with its execution
// modes.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "jit/codegen/gpu/band_launch.h"
#include "jit/codegen/spirv/spirv_builder.h"
#include "jit/codegen/spirv/spirv_codegen.h"

namespace plaidml::jit::spirv {

class Builtins {
 public:
  explicit Builtins(SpvBuilder& b) : b_(b) {}
  // The uvec3 Input variable of `which` (GlobalInvocationId, LocalInvocationId, WorkgroupId).
  Id get(spv::BuiltIn which);
  // The u32 components x, y, z of `which`, loaded in the current block.
  std::array<Id, 3> load(spv::BuiltIn which);
  // The u32 Input variable of a scalar builtin (SubgroupId, SubgroupLocalInvocationId: these
  // add the GroupNonUniform capability), and its value loaded in the current block.
  Id get_scalar(spv::BuiltIn which);
  Id load_scalar(spv::BuiltIn which);

 private:
  SpvBuilder& b_;
  std::map<spv::BuiltIn, Id> vars_;
};

// The GLCompute entry point `name` of function `fn`: its interface (the Input variables it
// reads; SPIR-V 1.3 lists no others), LocalSize, and SignedZeroInfNanPreserve where the target
// has float controls.
void declare_entry(SpvBuilder& b, Id fn, const std::string& name, const std::vector<Id>& interface,
                   const LaunchDims& launch, const SpirvTarget& target);

}  // namespace plaidml::jit::spirv
