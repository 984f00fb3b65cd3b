// Resident constants: a program's constant tensors (weights) are uploaded to a device the first
// time a run needs them and stay there for every later run, as long as a program holding the
// constant lives; so are their packed copies (PanelPacking), one per packing. Keyed by the
// constant object itself (not by shape), so constants are never part of the shape key and their
// bytes are never read again to find them.
// Thread-safe: concurrent first runs upload a constant once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "jit/lower/lower.h"
#include "jit/runtime.h"

namespace plaidml::jit {

// Drops the pages of a file-backed constant (ConstantData::file_backed) from this process's
// memory, once its packed copy holds what the kernels read: they read back from the file if
// anything touches them again. Other constants are left alone.
void drop_file_pages(const ir::ConstantData& constant);

class ConstantBuffers {
 public:
  // Allocates a buffer of the constant's shape on the device and writes its bytes.
  using Upload = std::function<Expected<std::shared_ptr<Buffer>>(const ir::ConstantData&)>;

  // The constant's buffer on `device` (packed as `packing` says), made with `upload` on first
  // use.
  Expected<std::shared_ptr<Buffer>> get(const std::shared_ptr<const ir::ConstantData>& constant,
                                        int device, const PanelPacking& packing,
                                        const Upload& upload);

  int64_t uploads() const;        // constants uploaded so far (one per constant and device)
  int64_t resident_bytes() const;  // bytes of the constants held now

 private:
  struct Entry {
    std::weak_ptr<const ir::ConstantData> constant;  // expired: the entry is dropped
    std::shared_ptr<Buffer> buffer;
  };
  void drop_expired();  // with mutex_ held

  mutable std::mutex mutex_;
  // constant, device, packing's rows, cols, width
  using Key = std::tuple<const ir::ConstantData*, int, int64_t, int64_t, int64_t>;
  std::map<Key, Entry> entries_;
  int64_t uploads_ = 0;
};

}  // namespace plaidml::jit
