// Workgroup memory of a SPIR-V module, shared by its kernels. A SPIR-V 1.3 entry point lists
// only its Input and Output variables, so drivers and the validation layer may count every
// Workgroup variable of the module against each entry point's shared-memory limit (the
// validation layer does; NVIDIA's driver lost the device on ResNet-50, whose module declared
// 140 KB of tiles across its kernels, 48 KB allowed). So each value type gets one Workgroup
// array that every kernel's tiles of that type are laid out in, from offset 0, and the array
// is as long as the largest kernel needs: the module declares what one kernel uses, at most.
#pragma once

#include <cstdint>
#include <map>

#include "jit/codegen/spirv/spirv_builder.h"

namespace plaidml::jit::spirv {

class WorkgroupArena {
 public:
  explicit WorkgroupArena(SpvBuilder& b) : b_(b) {}

  // The Workgroup array of elements of type `value_type` (a scalar type id), which the caller's
  // kernel uses up to element `end` (exclusive). Its length is decided by declare().
  Id array(Id value_type, int64_t end);

  // Declares the arrays (each as long as its largest use) and names them. Call once, after
  // every kernel was emitted and before SpvBuilder::finish.
  void declare();

 private:
  struct Array {
    Id variable = 0;
    int64_t length = 0;
  };
  SpvBuilder& b_;
  std::map<Id, Array> arrays_;  // by value type
};

}  // namespace plaidml::jit::spirv
