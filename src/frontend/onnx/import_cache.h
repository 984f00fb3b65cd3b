// Imported models kept in the disk cache (plaidml_program_cache_store, libplaidml's program
// files): a model file imported again with the same options, in any later process, comes back
// from the cache without protobuf parsing, weight transposes or batch-norm folding, its weights
// the cache file's mapped pages.
//
// The key is the file's identity, not its bytes (hashing a 100 MB model would cost what the
// cache saves): its canonical path, device and inode, size, and modification and change times
// in nanoseconds (the change time moves on any write, and no user can set it), with the import
// options and the importer's revision. Models with external data, and imports that bind input
// values, are not cached.
#pragma once

#include <optional>
#include <string>

#include <plaidml/plaidml.h>

#include "graph_importer.h"

namespace plaidml::onnx_import {

// Bump with any change to what the importer makes of a model (2: size assertions, issue 17).
inline constexpr int kImporterRevision = 2;

// The cache key of importing `path` with `options`, or nullopt when the import is not cached
// (the file cannot be examined, input values are bound).
std::optional<std::string> import_cache_key(const std::string& path, const ImportOptions& options);

}  // namespace plaidml::onnx_import
