// Loads an object file of kernels into the process with LLVM ORC (LLJIT) and resolves their
// entry points. One ResourceTracker per loaded object, so unloading frees the code.
// No LLVM types in this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace plaidml::devices::cpu {

using KernelFn = void (*)(void* const* slots, int64_t begin, int64_t end);

class LoadedObject {
 public:
  virtual ~LoadedObject() = default;  // removes the code from the JIT
  virtual const std::vector<KernelFn>& kernels() const = 0;
};

class OrcLoader {
 public:
  static Expected<std::unique_ptr<OrcLoader>> create();
  virtual ~OrcLoader() = default;
  // Thread-safe. symbols: the entry points to resolve, in the order kernels() returns them.
  virtual Expected<std::unique_ptr<LoadedObject>> load(const std::vector<uint8_t>& object,
                                                       const std::vector<std::string>& symbols) = 0;
};

}  // namespace plaidml::devices::cpu
