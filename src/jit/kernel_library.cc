#include "jit/kernel_library.h"

namespace plaidml::jit {

std::optional<LoadedKernel> KernelLibrary::find(const std::string& device_id,
                                                const Sha256Digest& form) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find({device_id, form});
  if (it == kernels_.end()) return std::nullopt;
  hits_++;
  return it->second;
}

void KernelLibrary::add(const std::string& device_id, const Sha256Digest& form,
                        LoadedKernel kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  kernels_.emplace(std::make_pair(device_id, form), std::move(kernel));
}

int64_t KernelLibrary::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

}  // namespace plaidml::jit
