// The kernel library: the compiled kernels loaded on each device, by the digest of their form
// (jit/kernel_table.h). A compile looks every kernel of its table up here first and generates
// only those no earlier compile of this context loaded, so identical kernels of different
// programs, and of one program at different sizes of its symbolic dims, compile once (on the
// CPU a kernel whose sizes all lie in its parallel loop serves every size). Plans keep the
// executables they launch alive; the library keeps them for the compiles to come. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/base/hash.h"
#include "devices/device.h"
#include "jit/codegen/artifact.h"

namespace plaidml::jit {

// A compiled kernel as a plan launches it: kernel `index` of a loaded executable.
struct LoadedKernel {
  std::shared_ptr<const devices::Executable> executable;
  uint32_t index = 0;
  KernelEntry entry;
  // The artifact the kernel was generated in (its key text, jit/cache/artifact_key.h), which a
  // plan entry names so that a later process loads the kernel from the artifact cache.
  std::string artifact_key_text;
};

class KernelLibrary {
 public:
  // The kernel of `form` loaded on device `device_id`, if a compile loaded one; counted as a
  // hit when found.
  std::optional<LoadedKernel> find(const std::string& device_id, const Sha256Digest& form);
  // Keeps `kernel` for later lookups of `form` on `device_id` (a form already there keeps the
  // kernel it has: both compute the same).
  void add(const std::string& device_id, const Sha256Digest& form, LoadedKernel kernel);
  // Kernels that lookups found here instead of generating or loading them.
  int64_t hits() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, Sha256Digest>, LoadedKernel> kernels_;
  int64_t hits_ = 0;
};

}  // namespace plaidml::jit
