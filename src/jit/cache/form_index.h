// Kernel forms on disk: the subfolder "forms" of the cache folder, beside "kernels".
//
// Per kernel form (the digest of jit/kernel_table.h's form) and artifact target: the artifact
// that holds the kernel's code (its key text, jit/cache/artifact_key.h) and the kernel's place
// in it. A compile that misses the kernel library in memory (jit/kernel_library.h) finds here
// a kernel an earlier process generated, and loads it from the artifact cache: a new process at
// a new size of a symbolic dim generates only the kernels whose forms no process saw. An entry
// names an artifact that may be gone since (then the kernel is generated again, and the entry
// rewritten). Write failures are the kernel folder's too, which warns for both. Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "core/base/hash.h"
#include "jit/cache/artifact_key.h"
#include "jit/cache/disk_cache.h"

namespace plaidml::jit {

struct FormPlace {
  std::string artifact_key_text;
  int index = 0;  // the kernel's place among the artifact's kernels
};

class FormIndex {
 public:
  // disk_dir: the cache folder (jit/cache/cache_dir.h); "" turns the index off.
  explicit FormIndex(const std::string& disk_dir);

  bool enabled() const { return disk_.enabled(); }
  // Where the kernel of `form` compiled for `target` is, or nullopt (absent or damaged: logged).
  std::optional<FormPlace> find(const Sha256Digest& form, const ArtifactTarget& target) const;
  void write(const Sha256Digest& form, const ArtifactTarget& target, const FormPlace& place);

 private:
  DiskCache disk_;
};

}  // namespace plaidml::jit
