#include "jit/constant_buffers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace plaidml::jit {

void drop_file_pages(const ir::ConstantData& constant) {
  if (!constant.file_backed) return;
  auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<uintptr_t>(constant.data);
  uintptr_t end = begin + constant.byte_size();
  begin = (begin + page - 1) / page * page;  // whole pages only: a neighbour may share the edges
  end = end / page * page;
  // A private read-only mapping: dropped pages read back the same bytes from the file.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

Expected<std::shared_ptr<Buffer>> ConstantBuffers::get(
    const std::shared_ptr<const ir::ConstantData>& constant, int device,
    const PanelPacking& packing, const Upload& upload) {
  // Uploading under the lock keeps concurrent first runs from uploading twice; it happens once
  // per constant and device, so the serialisation costs only the first run.
  std::lock_guard<std::mutex> lock(mutex_);
  Key key{constant.get(), device, packing.rows, packing.cols, packing.width};
  auto it = entries_.find(key);
  // An expired entry at the same address belongs to a freed constant: never reuse it.
  if (it != entries_.end() && !it->second.constant.expired()) return it->second.buffer;
  drop_expired();
  PLAIDML_ASSIGN(auto buffer, upload(*constant));
  entries_[key] = Entry{constant, buffer};
  ++uploads_;
  return buffer;
}

void ConstantBuffers::drop_expired() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.constant.expired() ? entries_.erase(it) : std::next(it);
  }
}

int64_t ConstantBuffers::uploads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return uploads_;
}

int64_t ConstantBuffers::resident_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t bytes = 0;
  for (const auto& [key, entry] : entries_) {
    if (!entry.constant.expired()) bytes += entry.buffer->shape().byte_size();
  }
  return bytes;
}

}  // namespace plaidml::jit
