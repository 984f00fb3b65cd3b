#include "jit/cache/disk_cache.h"

#include <cstring>

#include "core/base/byte_io.h"
#include "core/base/logging.h"
#include "jit/cache/folder_trust.h"

namespace plaidml::jit {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'M', 'L', 'K', 'C', '\r', '\n'};
constexpr size_t kHeaderSize = 8 + 4 + 4 + 32 + 8 + 8 + 8;

uint64_t checksum(std::string_view key_text, std::string_view payload) {
  // FNV-1a continued over both parts: the offset basis of the second part is the first's hash.
  uint64_t hash = fnv1a64(key_text);
  for (unsigned char c : payload) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

std::string encode_disk_entry(const Sha256Digest& digest, std::string_view key_text,
                              std::string_view payload) {
  ByteWriter w;
  w.out().reserve(kHeaderSize + key_text.size() + payload.size());
  w.bytes(std::string_view(kMagic, sizeof(kMagic)));
  w.u32(kDiskEntryVersion);
  w.u32(0);
  w.bytes(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  w.u64(key_text.size());
  w.u64(payload.size());
  w.u64(checksum(key_text, payload));
  w.bytes(key_text);
  w.bytes(payload);
  return std::move(w.out());
}

ParsedEntry parse_disk_entry(std::string_view entry) {
  ByteReader r(entry);
  ParsedEntry parsed;
  std::string_view magic, digest;
  uint32_t version = 0, reserved = 0;
  uint64_t key_size = 0, payload_size = 0, sum = 0;
  if (!r.bytes(sizeof(kMagic), magic) || magic != std::string_view(kMagic, sizeof(kMagic))) {
    parsed.problem = "not a plaidml cache entry (bad magic)";
  } else if (!r.u32(version) || !r.u32(reserved)) {
    parsed.problem = "truncated header";
  } else if (version != kDiskEntryVersion || reserved != 0) {
    parsed.problem = fmt::format("entry format version {}.{} (this build reads {}.0)", version,
                                 reserved, kDiskEntryVersion);
  } else if (!r.bytes(parsed.digest.size(), digest) || !r.u64(key_size) || !r.u64(payload_size) ||
             !r.u64(sum)) {
    parsed.problem = "truncated header";
  } else if (!r.bytes(key_size, parsed.key_text) || !r.bytes(payload_size, parsed.payload)) {
    parsed.problem = fmt::format("truncated: {} bytes where the header announces {}", entry.size(),
                                 kHeaderSize + key_size + payload_size);
  } else if (r.remaining() != 0) {
    parsed.problem = fmt::format("{} bytes after the payload", r.remaining());
  } else if (sum != checksum(parsed.key_text, parsed.payload)) {
    parsed.problem = "checksum mismatch";
  } else {
    std::memcpy(parsed.digest.data(), digest.data(), parsed.digest.size());
  }
  return parsed;
}

DiskCache::DiskCache(std::string dir, bool quiet_writes, uint64_t max_entry_bytes)
    : dir_(std::move(dir)), max_entry_bytes_(max_entry_bytes), warned_(quiet_writes) {
  if (!dir_.empty()) usable_folder(/*create=*/false, nullptr);  // a refusal is said now
}

bool DiskCache::enabled() const { return !dir_.empty() && !refused_.load(); }

std::string DiskCache::path_of(const Sha256Digest& digest) const {
  return dir_ + "/" + to_hex(digest);
}

std::string DiskCache::usable_folder(bool create, std::string* create_error) const {
  std::lock_guard<std::mutex> lock(folder_mutex_);
  if (!trusted_folder_.empty() || refused_.load()) return trusted_folder_;
  int err = 0;
  FolderTrust trust = prepare_folder(dir_, create, &err);
  switch (trust.verdict) {
    case FolderTrust::Verdict::kTrusted:
      trusted_folder_ = trust.resolved;
      break;
    case FolderTrust::Verdict::kAbsent:
      if (create) {
        *create_error = fmt::format("cannot create the folder ({})",
                                    err ? std::strerror(err) : "something else is in the way");
      }
      break;
    case FolderTrust::Verdict::kRefused:
      refused_ = true;
      warn_untrusted_folder("kernel cache", dir_, trust);
      break;
  }
  return trusted_folder_;
}

DiskReadResult DiskCache::read(const Sha256Digest& digest, std::string_view key_text) const {
  if (!enabled()) return {};
  std::string folder = usable_folder(/*create=*/false, nullptr);
  if (folder.empty()) return {};
  std::string path = folder + "/" + to_hex(digest);
  CacheFileRead file = read_cache_file(path, max_entry_bytes_);
  if (file.kind == CacheFileRead::Kind::kAbsent) return {};
  if (file.kind == CacheFileRead::Kind::kError) {
    logger().debug("kernel cache: cannot read {}: {}", path, file.problem);
    return {};
  }
  ParsedEntry entry;
  if (file.kind == CacheFileRead::Kind::kRefused) {
    entry.problem = file.problem;
  } else {
    entry = parse_disk_entry(file.data);
    if (entry.problem.empty() && (entry.digest != digest || entry.key_text != key_text)) {
      entry.problem = "it holds another key";
    }
  }
  if (!entry.problem.empty()) {
    logger().warn("kernel cache: ignoring the invalid entry {}: {}; it will be rebuilt", path,
                  entry.problem);
    return {DiskLookup::kInvalid, ""};
  }
  return {DiskLookup::kHit, std::string(entry.payload)};
}

bool DiskCache::write(const Sha256Digest& digest, std::string_view key_text,
                      std::string_view payload) {
  if (!enabled()) return false;
  std::string entry = encode_disk_entry(digest, key_text, payload);
  if (entry.size() > max_entry_bytes_) {
    // Readers would refuse it: better not to spend the disk.
    logger().debug("kernel cache {}: not storing an entry of {} bytes (over {})", dir_,
                   entry.size(), max_entry_bytes_);
    return false;
  }
  std::string create_error;
  std::string folder = usable_folder(/*create=*/true, &create_error);
  if (folder.empty()) {
    if (!create_error.empty()) warn_write_failure(create_error);
    return false;
  }
  std::string failure = replace_cache_file(folder + "/" + to_hex(digest),
                                           cache_temp_name(folder, to_hex(digest, 8)), entry);
  if (!failure.empty()) {
    warn_write_failure(failure);
    return false;
  }
  return true;
}

void DiskCache::warn_write_failure(const std::string& what) {
  if (warned_.exchange(true)) {
    logger().debug("kernel cache {}: {}", dir_, what);
    return;
  }
  logger().warn(
      "kernel cache {}: {}; running without saving compiled kernels there (set "
      "PLAIDML_CACHE_DIR to a writable folder, or to an empty value to turn the disk cache off)",
      dir_, what);
}

}  // namespace plaidml::jit
