// Compiled plans on disk: the subfolder "plans" of the cache folder, beside "kernels".
//
// A plan entry's key is everything a plan depends on: the program's Tile text (constants by
// digest), the input shapes, the artifact target (format, device or CPU description, LLVM
// version), the CPU schedule's target (vector width, caches, threads), the compiler revision
// and the plan encoding's version. Its payload is a PlanRecord (jit/plan_record.h). The entry
// stores the key text itself (jit/cache/disk_cache.h), so a hash collision reads as a miss.
// Thread-safe.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/program.h"
#include "jit/cache/artifact_key.h"
#include "jit/cache/disk_cache.h"
#include "jit/passes/cpu_target.h"
#include "jit/plan_record.h"

namespace plaidml::jit {

struct PlanStoreStats {
  int64_t hits = 0;     // plans made from an entry (nothing bound, lowered or scheduled)
  int64_t misses = 0;   // lookups without a usable entry (absent, damaged or stale)
  int64_t writes = 0;   // entries written
};

// The key of a plan entry (an ArtifactKey in form: text and its SHA-256).
ArtifactKey make_plan_key(const ir::Program& program, const std::vector<Shape>& input_shapes,
                          const ArtifactTarget& target, const passes::CpuTarget& cpu);

class PlanStore {
 public:
  // disk_dir: the cache folder (jit/cache/cache_dir.h); "" turns plan entries off.
  explicit PlanStore(const std::string& disk_dir);

  bool enabled() const { return disk_.enabled(); }
  // The record stored under key, or nullopt (absent, unreadable or malformed: logged, and
  // counted as a miss).
  std::optional<PlanRecord> read(const ArtifactKey& key);
  // What became of a record read: a plan (a hit), or not (a miss: it did not fit the program,
  // or its code could not be had; the compile that follows rewrites the entry).
  void count(bool used);
  void write(const ArtifactKey& key, const PlanRecord& record);
  PlanStoreStats stats() const;

 private:
  DiskCache disk_;
  std::atomic<int64_t> hits_{0}, misses_{0}, writes_{0};
};

}  // namespace plaidml::jit
