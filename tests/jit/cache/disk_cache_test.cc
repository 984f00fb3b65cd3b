// The disk cache's files: round trip, every kind of damage detected (then rewritten), atomic
// writes from many threads, and folders that cannot be written.
#include "jit/cache/disk_cache.h"

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "cache_test_util.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::testing;

namespace {

const std::string kKey = "plaidml artifact\nkernel k0 ...\n";
const std::string kPayload = std::string("object \0 bytes", 14) + std::string(1000, 'x');

Sha256Digest digest_of(const std::string& key) { return sha256(key); }

// Writes kKey -> kPayload into a fresh cache of dir and returns the entry's path.
std::string write_entry(DiskCache& cache) {
  REQUIRE(cache.write(digest_of(kKey), kKey, kPayload));
  return cache.path_of(digest_of(kKey));
}

// Damages the entry with f, checks that a read reports it invalid with `problem` in a warning,
// and that the next write makes it valid again.
template <typename F>
void check_damage_detected(F damage, const std::string& problem) {
  TempDir dir;
  DiskCache cache(dir.path());
  std::string path = write_entry(cache);
  std::string bytes = read_file(path);
  damage(bytes);
  write_file(path, bytes);
  LogCapture log;
  DiskReadResult r = cache.read(digest_of(kKey), kKey);
  CHECK(r.lookup == DiskLookup::kInvalid);
  CHECK(log.warnings_with("kernel cache: ignoring the invalid entry " + path) == 1);
  CHECK(log.warnings_with(problem) == 1);
  CHECK(log.warnings_with("it will be rebuilt") == 1);
  REQUIRE(cache.write(digest_of(kKey), kKey, kPayload));
  r = cache.read(digest_of(kKey), kKey);
  CHECK(r.lookup == DiskLookup::kHit);
  CHECK(r.payload == kPayload);
}

}  // namespace

TEST_CASE("disk cache: an entry round-trips under the key's SHA-256 as its name") {
  TempDir dir;
  DiskCache cache(dir.path("sub/folder"));  // created with its parents on the first write
  CHECK(cache.read(digest_of(kKey), kKey).lookup == DiskLookup::kAbsent);
  std::string path = write_entry(cache);
  CHECK(path == dir.path("sub/folder/") + to_hex(sha256(kKey)));
  DiskReadResult r = cache.read(digest_of(kKey), kKey);
  CHECK(r.lookup == DiskLookup::kHit);
  CHECK(r.payload == kPayload);
  // Another DiskCache on the folder (as another process would) reads it too.
  DiskCache other(dir.path("sub/folder"));
  CHECK(other.read(digest_of(kKey), kKey).payload == kPayload);
  // No temporary file is left behind.
  CHECK(list_files(dir.path("sub/folder")) == std::vector<std::string>{to_hex(sha256(kKey))});
}

TEST_CASE("disk cache: an empty payload and an empty key round-trip") {
  TempDir dir;
  DiskCache cache(dir.path());
  REQUIRE(cache.write(digest_of(""), "", ""));
  DiskReadResult r = cache.read(digest_of(""), "");
  CHECK(r.lookup == DiskLookup::kHit);
  CHECK(r.payload.empty());
}

TEST_CASE("disk cache: rewriting an entry replaces it") {
  TempDir dir;
  DiskCache cache(dir.path());
  write_entry(cache);
  REQUIRE(cache.write(digest_of(kKey), kKey, "new"));
  CHECK(cache.read(digest_of(kKey), kKey).payload == "new");
}

TEST_CASE("disk cache: a truncated entry is detected and rewritten") {
  check_damage_detected([](std::string& b) { b.resize(b.size() - 1); }, "truncated");
  check_damage_detected([](std::string& b) { b.resize(b.size() / 2); }, "truncated");
  check_damage_detected([](std::string& b) { b.resize(20); }, "truncated header");
  check_damage_detected([](std::string& b) { b.clear(); }, "bad magic");
}

TEST_CASE("disk cache: a flipped byte anywhere in the key or payload is detected") {
  for (size_t at : {size_t{72}, size_t{80}, size_t{72 + kKey.size()}, size_t{200}, size_t{1000}}) {
    CAPTURE(at);
    check_damage_detected([at](std::string& b) { b[at] ^= 0x10; }, "checksum mismatch");
  }
}

TEST_CASE("disk cache: a flipped bit in any byte of an entry makes it invalid") {
  TempDir dir;
  DiskCache cache(dir.path());
  std::string path = write_entry(cache);
  const std::string good = read_file(path);
  auto level = logger().level();
  logger().set_level(LogLevel::kError);  // keeps a thousand warnings off stderr
  int missed = 0;
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] ^= 0x01;
    write_file(path, bad);
    if (cache.read(digest_of(kKey), kKey).lookup != DiskLookup::kInvalid) ++missed;
  }
  logger().set_level(level);
  CHECK(missed == 0);
}

TEST_CASE("disk cache: a wrong magic, an unknown version or extra bytes are ignored") {
  check_damage_detected([](std::string& b) { b[0] = 'X'; }, "bad magic");
  check_damage_detected([](std::string& b) { b[8] = 99; },
                        "entry format version 99.0 (this build reads 1.0)");
  check_damage_detected([](std::string& b) { b += "tail"; }, "4 bytes after the payload");
}

TEST_CASE("disk cache: an entry holding another key is a miss, not a wrong payload") {
  TempDir dir;
  DiskCache cache(dir.path());
  // A well-formed entry for key B stored under key A's name (as a hash collision would).
  std::string other_key = kKey + "other";
  write_file(cache.path_of(digest_of(kKey)),
             encode_disk_entry(digest_of(other_key), other_key, "wrong code"));
  LogCapture log;
  CHECK(cache.read(digest_of(kKey), kKey).lookup == DiskLookup::kInvalid);
  CHECK(log.warnings_with("it holds another key") == 1);
}

TEST_CASE("disk cache: parse_disk_entry gives the parts of a valid entry") {
  std::string entry = encode_disk_entry(digest_of(kKey), kKey, kPayload);
  ParsedEntry parsed = parse_disk_entry(entry);
  CHECK(parsed.problem.empty());
  CHECK(parsed.digest == digest_of(kKey));
  CHECK(parsed.key_text == kKey);
  CHECK(parsed.payload == kPayload);
}

TEST_CASE("disk cache: an empty folder name disables it") {
  DiskCache cache("");
  CHECK_FALSE(cache.enabled());
  CHECK_FALSE(cache.write(digest_of(kKey), kKey, kPayload));
  CHECK(cache.read(digest_of(kKey), kKey).lookup == DiskLookup::kAbsent);
}

TEST_CASE("disk cache: a folder that cannot be created warns once and never fails") {
  TempDir dir;
  write_file(dir.path("file"), "not a folder");
  // A folder below a regular file cannot exist (ENOTDIR), even for root.
  DiskCache cache(dir.path("file/cache"));
  LogCapture log;
  CHECK_FALSE(cache.write(digest_of(kKey), kKey, kPayload));
  CHECK_FALSE(cache.write(digest_of(kKey + "2"), kKey + "2", kPayload));
  CHECK(log.warnings_with("kernel cache " + dir.path("file/cache") +
                          ": cannot create the folder") == 1);
  CHECK(log.warnings_with("running without saving compiled kernels there") == 1);
  CHECK(log.warnings_with("set PLAIDML_CACHE_DIR to a writable folder") == 1);
  CHECK(cache.read(digest_of(kKey), kKey).lookup == DiskLookup::kAbsent);
}

TEST_CASE("disk cache: a read-only folder warns once and its entries are still read") {
  if (running_as_root()) {
    MESSAGE("running as root, where mode 0555 does not stop writes: covered by the ENOTDIR case");
    return;
  }
  TempDir dir;
  DiskCache cache(dir.path());
  write_entry(cache);
  REQUIRE(::chmod(dir.path().c_str(), 0555) == 0);
  LogCapture log;
  CHECK_FALSE(cache.write(digest_of(kKey + "2"), kKey + "2", kPayload));
  CHECK(log.warnings_with("cannot write") == 1);
  CHECK(log.warnings_with("Permission denied") == 1);
  CHECK(cache.read(digest_of(kKey), kKey).payload == kPayload);
  ::chmod(dir.path().c_str(), 0755);
}

TEST_CASE("disk cache: a write failing midway (as on a full disk) warns, leaves no temp file") {
  // A file size limit makes write() fail part-way (EFBIG), as ENOSPC does on a full disk.
  TempDir dir;
  DiskCache cache(dir.path());
  struct rlimit old_limit {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 512;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  LogCapture log;
  bool written = cache.write(digest_of(kKey), kKey, kPayload);
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  CHECK_FALSE(written);
  CHECK(log.warnings_with("cannot write " + dir.path() + "/.tmp-") == 1);
  CHECK(log.warnings_with("File too large") == 1);
  CHECK(list_files(dir.path()).empty());
  // Once there is room again, the entry is written.
  CHECK(cache.write(digest_of(kKey), kKey, kPayload));
}

TEST_CASE("disk cache: a failing rename warns and leaves no temporary file") {
  TempDir dir;
  DiskCache cache(dir.path());
  // The entry's name is taken by a non-empty folder: rename() cannot replace it.
  std::filesystem::create_directories(cache.path_of(digest_of(kKey)) + "/blocker");
  LogCapture log;
  CHECK_FALSE(cache.write(digest_of(kKey), kKey, kPayload));
  CHECK(log.warnings_with("cannot rename") == 1);
  CHECK(list_files(dir.path()) == std::vector<std::string>{to_hex(sha256(kKey))});
}

TEST_CASE("disk cache: threads writing and reading one key at once all see whole entries") {
  TempDir dir;
  DiskCache cache(dir.path());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        if (!cache.write(digest_of(kKey), kKey, kPayload)) bad++;
        DiskReadResult r = cache.read(digest_of(kKey), kKey);
        if (r.lookup != DiskLookup::kHit || r.payload != kPayload) bad++;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(bad.load() == 0);
  CHECK(list_files(dir.path()).size() == 1);
}
