// One folder of cache entries, one file per key, shared by every process that uses the folder.
//
// An entry (all integers little-endian):
//   magic "PLMLKC\r\n" | u32 format version | u32 0 (reserved) | SHA-256 of the key (32 bytes)
//   | u64 key length | u64 payload length | u64 checksum (FNV-1a of key text then payload)
//   | key text | payload
// It is written to a temporary file in the same folder (a name unique to the process, thread
// and call) and renamed onto its final name, so a reader sees a whole entry or none, and two
// processes writing the same key at once both succeed (the last rename wins; both wrote the
// same bytes). A reader checks everything: a truncated, damaged, foreign or other-version entry
// is logged and reported as kInvalid, and the caller's next write replaces it.
//
// Writing never fails the caller: a folder that cannot be created or written (read-only, full,
// not a folder) gives one warning per DiskCache (later failures log at debug level) and the
// program runs on without the entry. No fsync: the rename makes entries whole for concurrent
// readers; after a power loss an entry may be damaged, and the checksum catches that.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/hash.h"

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
  // dir: the folder, created with its parents on the first write. "" disables the cache: every
  // read finds nothing without touching the disk, every write is skipped.
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}
  // quiet_writes: write failures log at debug level only (a second folder beside one that
  // already warns for the same cause: the plan entries beside the kernels).
  DiskCache(std::string dir, bool quiet_writes) : dir_(std::move(dir)), warned_(quiet_writes) {}

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  // The entry file of a key digest: <dir>/<64 hex digits>.
  std::string path_of(const Sha256Digest& digest) const;

  // The payload stored under key_text (whose SHA-256 is digest). An invalid entry is logged.
  DiskReadResult read(const Sha256Digest& digest, std::string_view key_text) const;
  // Stores payload under key_text. Returns whether the entry is now on disk; a failure is
  // logged (see above) and is never an error for the caller.
  bool write(const Sha256Digest& digest, std::string_view key_text, std::string_view payload);

 private:
  void warn_write_failure(const std::string& what);

  std::string dir_;
  std::atomic<bool> warned_{false};
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
