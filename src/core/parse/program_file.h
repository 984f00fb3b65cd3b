// A program as one file: its Tile text and the bytes of the constants the text names by digest,
// so that a later process loads it without the frontend that made it (an imported ONNX model
// comes back without protobuf parsing, weight transposes or batch-norm folding).
//
// Layout (integers little-endian):
//   magic "PLMLPRG\n" | u32 version | u32 0 | u64 header length H | u64 checksum
//   | str tag | str program name | str Tile text | u64 constant count
//   | per constant: u64 digest, u32 dtype (its C ABI value), u32 rank, i64 dims[rank],
//     u64 offset, u64 length
//   | u64 origin count | per node with an origin (ir::Node::origin): str node name, str origin
//   | padding | each constant's bytes at its offset, a multiple of 64
// (str: u64 length, then the bytes.) The checksum is murmur64 of the first H bytes with the
// checksum field zero; the constants are checked against their digests as they load (a digest
// is computed for every constant anyway). The constants are the file's pages, mapped read-only:
// a loaded program's weights cost no copy, and the CPU device reads them in place. So a file
// must never be written in place while a program loaded from it lives (the pages would change
// under it): files are written beside and renamed over, here and by every cache.
#pragma once

#include <memory>
#include <string>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::parse {

inline constexpr uint32_t kProgramFileVersion = 1;

struct ProgramFileOptions {
  std::string tag;  // stored, and on load required to match (a cache's key); "" for none
  // Load: refuse a symlink and never block on the path (a FIFO, a device): for files in a
  // folder that others might have written to (the cache).
  bool untrusted_path = false;
};

// Writes to a temporary file beside `path` and renames it over `path`, so a reader sees the
// whole file or the previous one. Errors: kIoError naming the path and the system's reason.
Status save_program(const ir::Program& program, const std::string& path,
                    const ProgramFileOptions& options = {});

// Errors: kNotFound (no such file; or another tag), kIoError (not a regular file, truncated,
// damaged, another version: the message names what), the parser's (never for a file this
// version wrote).
Expected<std::shared_ptr<const ir::Program>> load_program(const std::string& path,
                                                          const ProgramFileOptions& options = {});

}  // namespace plaidml::parse
