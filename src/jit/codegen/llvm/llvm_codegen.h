// Loop IR -> LLVM IR -> native object bytes (the only LLVM-including folder of the JIT).
// Kept free of LLVM headers so callers compile fast.
#pragma once

#include "core/base/status.h"
#include "jit/codegen/artifact.h"
#include "jit/codegen/llvm/kernel_partition.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

// The host CPU as LLVM sees it (name, features, widest vector).
TargetDesc host_target();

// The version of the LLVM this build links ("19.1.7"): generated code depends on it, so it goes
// into artifact-cache keys. A function, so that the rest of the JIT needs no LLVM header.
const char* llvm_version();

// Emits one function per kernel (the ABI in artifact.h): the kernels split into at most
// `threads` parts compiled at once (kernel_partition.h; `min_part_weight` as there), one ELF
// object per part, archived together when there are several. The code does not depend on
// `threads`, only how it is split.
Expected<Artifact> emit_llvm_object(const LoweredProgram& program, const TargetDesc& target,
                                    int threads = 1,
                                    size_t min_part_weight = llvmgen::kMinPartWeight);

}  // namespace plaidml::jit
