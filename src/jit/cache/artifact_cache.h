// The artifact cache (docs/design.md section 6): artifact key (jit/cache/artifact_key.h) ->
// generated code, in memory and in a folder on disk that later processes reuse. A lookup tries
// memory, then disk, then runs the code generator and stores its artifact in both.
// Only successful generations are stored; a disk entry that fails to decode is treated as
// absent and rewritten, and is not read again until then. Concurrent lookups of one missing key may
// both generate (the plan cache in front of this one already compiles each plan once). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/base/status.h"
#include "jit/cache/artifact_key.h"
#include "jit/cache/disk_cache.h"
#include "jit/codegen/artifact.h"

namespace plaidml::jit {

struct ArtifactCacheStats {
  int64_t kernels_compiled = 0;     // kernels the code generator produced (all caches missed)
  int64_t memory_hits = 0;          // artifacts served from memory
  int64_t disk_hits = 0;            // artifacts read from the disk cache
  int64_t disk_misses = 0;          // disk lookups without a valid entry (absent or invalid)
  int64_t disk_invalid = 0;         // entries found damaged, truncated or foreign (then rebuilt)
  int64_t disk_writes = 0;          // entries written
  int64_t disk_write_failures = 0;  // entries that could not be written (folder unwritable)
};

class ArtifactCache {
 public:
  using ArtifactPtr = std::shared_ptr<const Artifact>;
  using Generate = std::function<Expected<Artifact>()>;
  enum class Source { kGenerated, kMemory, kDisk };
  struct Lookup {
    ArtifactPtr artifact;
    Source source = Source::kGenerated;
  };
  static constexpr size_t kDefaultMemoryBytes = size_t{64} << 20;

  // disk_dir: the cache folder (jit/cache/cache_dir.h); "" keeps artifacts in memory only, and
  // so does a folder that fails the trust check (jit/cache/folder_trust.h: logged once).
  // Entries live in its subfolder "kernels". memory_bytes bounds the code held in memory (the
  // least recently used artifacts go first).
  explicit ArtifactCache(std::string disk_dir, size_t memory_bytes = kDefaultMemoryBytes);

  // The artifact of key: from memory, from disk, or from generate() (whose error is returned
  // as is and not cached).
  Expected<Lookup> get_or_generate(const ArtifactKey& key, const Generate& generate);
  // The artifact of key from memory or disk, without generating it; nullopt when neither has
  // it (counted as get_or_generate counts lookups).
  std::optional<Lookup> find(const ArtifactKey& key);
  // Runs generate() without looking the code up or storing it (a compile that must see code
  // generation run, e.g. to dump its output); counted in kernels_compiled like any other.
  Expected<Lookup> generate_uncached(const Generate& generate);

  ArtifactCacheStats stats() const;
  // The folder given at construction ("" when the disk cache is off, or was refused then).
  const std::string& disk_dir() const { return disk_dir_; }

 private:
  struct Entry {
    std::string key_text;
    ArtifactPtr artifact;
    uint64_t last_use = 0;
  };
  ArtifactPtr find_in_memory(const ArtifactKey& key);
  ArtifactPtr read_disk(const ArtifactKey& key);
  void remember(const ArtifactKey& key, ArtifactPtr artifact);
  void write_disk(const ArtifactKey& key, const Artifact& artifact);
  void evict();  // with mutex_ held

  std::string disk_dir_;
  DiskCache disk_;
  size_t memory_limit_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> memory_;  // by key hex
  // Keys (hex) whose disk lookup found no valid entry and that were not written since: a plan
  // entry whose artifact is gone looks it up, then the compile that follows would again (and
  // warn twice of one damaged entry). Another process may write one meanwhile: a missed reuse.
  std::unordered_set<std::string> not_on_disk_;
  size_t memory_bytes_ = 0;
  uint64_t clock_ = 0;
  ArtifactCacheStats stats_;
};

}  // namespace plaidml::jit
