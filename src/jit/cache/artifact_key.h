// The artifact-cache key (docs/design.md section 6): everything that determines the generated code.
// The key's text holds the kernels, by the digests of their forms (jit/kernel_table.h), or, for
// the tile search's timing programs, as printed (jit/loop/printer.h) with their buffer slots
// (role, dtype, shape); and the artifact format, the target (CPU triple, name and
// features, or the GPU's name and limits), the LLVM version, the compiler revision
// (compiler_revision.h) and the cache encoding's version. Its SHA-256 names the disk entry; the
// entry stores the text itself, so a hash collision reads as a miss, never as a wrong kernel.
#pragma once

#include <string>
#include <vector>

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

// The key of `text` (its SHA-256 beside it): a key text read back from disk.
ArtifactKey key_of_text(std::string text);

ArtifactKey make_artifact_key(const LoweredProgram& program, const ArtifactTarget& target);

// The key of an artifact of kernels named by the digests of their forms (jit/kernel_table.h),
// in order: a kernel's code follows from its form and the target alone, whatever program it
// came from (the code generators read nothing else of it that changes the code's meaning), so
// the text stays short however large the program.
ArtifactKey make_kernels_key(const std::vector<Sha256Digest>& forms, const ArtifactTarget& target);
// Whether `key_text`, made by make_kernels_key, names `form` as its kernel `index`: a place
// read back from disk (jit/cache/form_index.h, plan entries) is checked against it, so that a
// stale or foreign place never launches another kernel.
bool kernels_key_names(const std::string& key_text, size_t index, const Sha256Digest& form);

}  // namespace plaidml::jit
