// The artifact-cache key (docs/design.md section 6): everything that determines the generated code.
// The key's text holds the scheduled loop-IR kernels as printed (jit/loop/printer.h), their
// buffer slots (role, dtype, shape), the artifact format, the target (CPU triple, name and
// features, or the GPU's name and limits), the LLVM version, the compiler revision
// (compiler_revision.h) and the cache encoding's version. Its SHA-256 names the disk entry; the
// entry stores the text itself, so a hash collision reads as a miss, never as a wrong kernel.
#pragma once

#include <string>

#include "core/base/hash.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

// What the code is generated for, as compile() chose it for the device.
struct ArtifactTarget {
  std::string format;        // "elf-object", "opencl-c", "spirv"
  std::string description;   // TargetDesc::key(), GpuTarget::key() or SpirvTarget::key()
  std::string llvm_version;  // llvm_version(): the CPU code depends on it
};

struct ArtifactKey {
  std::string text;
  Sha256Digest digest{};
  std::string hex() const { return to_hex(digest); }
};

ArtifactKey make_artifact_key(const LoweredProgram& program, const ArtifactTarget& target);

}  // namespace plaidml::jit
