#include "jit/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "core/base/logging.h"
#include "core/base/byte_io.h"

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

std::string errno_text(int err) { return std::strerror(err); }

// The whole file, or nullopt with errno set.
std::optional<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string data;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) data.reserve(static_cast<size_t>(st.st_size));
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      errno = err;
      return std::nullopt;
    }
    if (n == 0) break;
    data.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

// Writes data to a new file at path (which must not exist). Returns 0 or an errno value.
int write_new_file(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return err;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return errno;  // NFS and full disks may report late
  return 0;
}

// A name no other process, thread or call uses at the same time, hidden from `ls`.
std::string temp_name(const std::string& dir, const Sha256Digest& digest) {
  static std::atomic<uint64_t> counter{0};
  size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return fmt::format("{}/.tmp-{}-{}-{:x}-{}", dir, to_hex(digest, 8), ::getpid(), tid,
                     counter.fetch_add(1));
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

std::string DiskCache::path_of(const Sha256Digest& digest) const {
  return dir_ + "/" + to_hex(digest);
}

DiskReadResult DiskCache::read(const Sha256Digest& digest, std::string_view key_text) const {
  if (!enabled()) return {};
  std::string path = path_of(digest);
  std::optional<std::string> data = read_file(path);
  if (!data) {
    if (errno != ENOENT)
      logger().debug("kernel cache: cannot read {}: {}", path, errno_text(errno));
    return {};
  }
  ParsedEntry entry = parse_disk_entry(*data);
  if (entry.problem.empty() && (entry.digest != digest || entry.key_text != key_text)) {
    entry.problem = "it holds another key";
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
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    warn_write_failure(fmt::format("cannot create the folder ({})", ec.message()));
    return false;
  }
  std::string temp = temp_name(dir_, digest);
  if (int err = write_new_file(temp, encode_disk_entry(digest, key_text, payload))) {
    ::unlink(temp.c_str());
    warn_write_failure(fmt::format("cannot write {} ({})", temp, errno_text(err)));
    return false;
  }
  std::string path = path_of(digest);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    warn_write_failure(fmt::format("cannot rename {} to {} ({})", temp, path, errno_text(err)));
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
