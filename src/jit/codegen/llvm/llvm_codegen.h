// Loop IR -> LLVM IR -> native object bytes (the only LLVM-including folder of the JIT).
// Kept free of LLVM headers so callers compile fast.
#pragma once

#include "core/base/status.h"
#include "jit/artifact.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

// The host CPU as LLVM sees it (name, features, widest vector).
TargetDesc host_target();

// Emits one function per kernel (the ABI in artifact.h) into one object file.
Expected<Artifact> emit_llvm_object(const LoweredProgram& program, const TargetDesc& target);

}  // namespace plaidml::jit
