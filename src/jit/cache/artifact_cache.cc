#include "jit/cache/artifact_cache.h"

#include "core/base/logging.h"
#include "jit/cache/artifact_codec.h"

namespace plaidml::jit {
namespace {

std::string entries_dir(const std::string& disk_dir) {
  return disk_dir.empty() ? "" : disk_dir + "/kernels";
}

size_t size_of(const Artifact& a) { return a.bytes.size() + a.kernels.size() * 64; }

}  // namespace

ArtifactCache::ArtifactCache(std::string disk_dir, size_t memory_bytes)
    : disk_dir_(std::move(disk_dir)), disk_(entries_dir(disk_dir_)), memory_limit_(memory_bytes) {
  // A folder refused now (jit/cache/folder_trust.h) turns the context's disk cache off, as "".
  if (!disk_.enabled()) disk_dir_.clear();
}

std::optional<ArtifactCache::Lookup> ArtifactCache::find(const ArtifactKey& key) {
  if (ArtifactPtr hit = find_in_memory(key)) return Lookup{hit, Source::kMemory};
  if (ArtifactPtr hit = read_disk(key)) {
    remember(key, hit);
    return Lookup{hit, Source::kDisk};
  }
  return std::nullopt;
}

Expected<ArtifactCache::Lookup> ArtifactCache::get_or_generate(const ArtifactKey& key,
                                                               const Generate& generate) {
  if (std::optional<Lookup> found = find(key)) return *found;
  PLAIDML_ASSIGN(Lookup generated, generate_uncached(generate));
  write_disk(key, *generated.artifact);
  remember(key, generated.artifact);
  return generated;
}

Expected<ArtifactCache::Lookup> ArtifactCache::generate_uncached(const Generate& generate) {
  PLAIDML_ASSIGN(Artifact generated, generate());
  auto artifact = std::make_shared<const Artifact>(std::move(generated));
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.kernels_compiled += static_cast<int64_t>(artifact->kernels.size());
  return Lookup{artifact, Source::kGenerated};
}

ArtifactCache::ArtifactPtr ArtifactCache::find_in_memory(const ArtifactKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = memory_.find(key.hex());
  if (it == memory_.end() || it->second.key_text != key.text) return nullptr;
  it->second.last_use = ++clock_;
  stats_.memory_hits++;
  return it->second.artifact;
}

ArtifactCache::ArtifactPtr ArtifactCache::read_disk(const ArtifactKey& key) {
  if (!disk_.enabled()) return nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (not_on_disk_.count(key.hex())) return nullptr;
  }
  DiskReadResult read = disk_.read(key.digest, key.text);
  ArtifactPtr artifact;
  bool invalid = read.lookup == DiskLookup::kInvalid;
  if (read.lookup == DiskLookup::kHit) {
    Expected<Artifact> decoded = decode_artifact(read.payload);
    if (decoded) {
      artifact = std::make_shared<const Artifact>(std::move(*decoded));
    } else {
      // The checksum matched, so this is a writer's bug rather than damage: say so loudly.
      logger().warn("kernel cache: ignoring the entry {}: {}", disk_.path_of(key.digest),
                    decoded.status().message());
      invalid = true;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (artifact) {
    stats_.disk_hits++;
  } else {
    stats_.disk_misses++;
    if (invalid) stats_.disk_invalid++;
    not_on_disk_.insert(key.hex());
  }
  return artifact;
}

void ArtifactCache::write_disk(const ArtifactKey& key, const Artifact& artifact) {
  if (!disk_.enabled()) return;
  bool written = disk_.write(key.digest, key.text, encode_artifact(artifact));
  std::lock_guard<std::mutex> lock(mutex_);
  (written ? stats_.disk_writes : stats_.disk_write_failures)++;
  if (written) not_on_disk_.erase(key.hex());
}

void ArtifactCache::remember(const ArtifactKey& key, ArtifactPtr artifact) {
  size_t bytes = size_of(*artifact);
  if (bytes > memory_limit_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = memory_.try_emplace(key.hex());
  if (!inserted) memory_bytes_ -= size_of(*it->second.artifact);
  it->second = Entry{key.text, std::move(artifact), ++clock_};
  memory_bytes_ += bytes;
  evict();
}

void ArtifactCache::evict() {
  while (memory_bytes_ > memory_limit_ && !memory_.empty()) {
    auto victim = memory_.begin();
    for (auto it = memory_.begin(); it != memory_.end(); ++it) {
      if (it->second.last_use < victim->second.last_use) victim = it;
    }
    memory_bytes_ -= size_of(*victim->second.artifact);
    memory_.erase(victim);
  }
}

ArtifactCacheStats ArtifactCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace plaidml::jit
