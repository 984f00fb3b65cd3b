// Programs kept in the disk cache folder under a caller's key (plaidml_program_cache_store and
// _load; libplaidml_onnx keeps imported models there): <folder>/programs/<SHA-256 of the key>,
// program files (core/parse/program_file.h) that hold the key, opened as untrusted paths.
#pragma once

#include <memory>
#include <string>

#include "core/ir/program.h"

namespace plaidml::jit {

// The folder's budget (PLAIDML_PROGRAM_CACHE_BYTES overrides it): after a store, the entries
// used least recently are removed until the folder fits, the new one always kept.
inline constexpr int64_t kProgramCacheBytes = int64_t{4} << 30;

// The folder is the one a Runtime made now without a cache_dir option would use. Nothing is
// stored when the disk cache is off; a folder that cannot be written is logged at debug level;
// one that fails the trust check (jit/cache/folder_trust.h) is logged as a warning, once, and
// neither read nor written. Folders are created with mode 0700.
// Loading an entry marks it used (its modification time), for the budget.
void store_cached_program(const std::string& key, const ir::Program& program);

// nullptr when there is no usable entry (absent, the cache off; damaged or foreign: logged as
// a warning, and the next store replaces it). Both throw std::bad_alloc when memory runs out,
// never taking that for a damaged entry or a program that cannot be kept.
std::shared_ptr<const ir::Program> load_cached_program(const std::string& key);

}  // namespace plaidml::jit
