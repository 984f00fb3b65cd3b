// One folder of cache entries, one file per key, shared by every process that uses the folder.
//
// An entry (all integers little-endian):
//   magic "PLMLKC\r\n" | u32 format version | u32 0 (reserved) | SHA-256 of the key (32 bytes)
//   | u64 key length | u64 payload length | u64 checksum (FNV-1a of key text then payload)
//   | key text | payload
// It is written to a temporary file in the same folder (a name unique to the process, thread
// and call, mode 0600) and renamed onto its final name, so a reader sees a whole entry or none,
// and two processes writing the same key at once both succeed (the last rename wins; both wrote
// the same bytes). A reader checks everything: a truncated, damaged, foreign or other-version
// entry, and anything at an entry's name that is not a regular file of at most kMaxEntryBytes
// (a symbolic link, a FIFO, a device, a folder: jit/cache/cache_file.h), is logged and
// reported as kInvalid, and the caller's next write replaces it.
//
// The folder holds code the process runs, so it is used only while it and the folders above it
// pass jit/cache/folder_trust.h: checked when the DiskCache is made and, if the folder does not
// exist then, again once it does (after the first write creates it, mode 0700). A refused folder
// is logged once and the cache is off from then on (enabled() is false).
//
// Writing never fails the caller: a folder that cannot be created or written (read-only, full,
// not a folder) gives one warning per DiskCache (later failures log at debug level) and the
// program runs on without the entry. No fsync: the rename makes entries whole for concurrent
// readers; after a power loss an entry may be damaged, and the checksum catches that.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/hash.h"
#include "jit/cache/cache_file.h"

namespace plaidml::jit {

inline constexpr uint32_t kDiskEntryVersion = 1;

// What a read found.
enum class DiskLookup {
  kHit,      // a valid entry for the key
  kAbsent,   // no entry (or the cache is disabled, or the file cannot be read)
  kInvalid,  // an entry that is damaged, truncated, of another format or of another key
};

struct DiskReadResult {
  DiskLookup lookup = DiskLookup::kAbsent;
  std::string payload;  // kHit only
};

class DiskCache {
 public:
  // dir: the folder (absolute), created with its parents on the first write. "" disables the
  // cache: every read finds nothing without touching the disk, every write is skipped.
  // quiet_writes: write failures log at debug level only (a second folder beside one that
  // already warns for the same cause: the plan entries beside the kernels). max_entry_bytes:
  // the largest entry read or written (tests make it small).
  explicit DiskCache(std::string dir, bool quiet_writes = false,
                     uint64_t max_entry_bytes = kMaxEntryBytes);

  // False when there is no folder, or it was refused (folder_trust.h).
  bool enabled() const;
  const std::string& dir() const { return dir_; }
  // The entry file of a key digest: <dir>/<64 hex digits>.
  std::string path_of(const Sha256Digest& digest) const;

  // The payload stored under key_text (whose SHA-256 is digest). An invalid entry is logged.
  DiskReadResult read(const Sha256Digest& digest, std::string_view key_text) const;
  // Stores payload under key_text. Returns whether the entry is now on disk; a failure is
  // logged (see above) and is never an error for the caller.
  bool write(const Sha256Digest& digest, std::string_view key_text, std::string_view payload);

 private:
  // The folder to read and write entries in (resolved), once it exists and passed the trust
  // check; "" before it exists or once refused. create: make it first; what fails then is
  // left in *create_error.
  std::string usable_folder(bool create, std::string* create_error) const;
  void warn_write_failure(const std::string& what);

  std::string dir_;
  uint64_t max_entry_bytes_;
  std::atomic<bool> warned_{false};
  mutable std::mutex folder_mutex_;
  mutable std::string trusted_folder_;  // resolved, once checked
  mutable std::atomic<bool> refused_{false};
};

// The entry format, exposed for tests and tools.
std::string encode_disk_entry(const Sha256Digest& digest, std::string_view key_text,
                              std::string_view payload);
// An entry's parts (views into the entry's bytes). problem is "" for a well-formed entry whose
// checksum matches, else what is wrong ("truncated: ...", "checksum mismatch", ...).
struct ParsedEntry {
  Sha256Digest digest{};
  std::string_view key_text;
  std::string_view payload;
  std::string problem;
};
ParsedEntry parse_disk_entry(std::string_view entry);

}  // namespace plaidml::jit
