// What the disk cache accepts at an entry's name (jit/cache/cache_file.h): only a regular file
// within the size cap. A symbolic link (to /dev/zero, /dev/urandom, or even to a valid entry),
// a FIFO, a device, a socket, a folder or an oversized file is an invalid entry: a quick miss
// with one warning naming the path and the reason, replaced by the next write. Reads stop at
// the size fstat gave; writes never go through what stands at the temporary or final name.
// Each read that could block if the fix regressed runs under alarm(), so CI fails instead of
// hanging.
#include "jit/cache/cache_file.h"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "cache_test_util.h"
#include "jit/cache/disk_cache.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::testing;

namespace {

const std::string kEntryKey = "plaidml artifact\nkernel entry-file ...\n";
const std::string kEntryPayload(3000, 'p');

bool is_regular_0600(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600;
}

// Puts `replace` at the name of a valid entry, then checks that a read is an invalid entry with
// one warning "<path>: <reason>", and (rewrite) that the next write puts a regular file there.
template <typename F>
void check_refused_entry(F replace, const std::string& reason, bool rewrite = true) {
  TempDir dir;
  DiskCache cache(dir.path());
  REQUIRE(cache.write(sha256(kEntryKey), kEntryKey, kEntryPayload));
  std::string path = cache.path_of(sha256(kEntryKey));
  REQUIRE(::unlink(path.c_str()) == 0);
  if (!replace(path)) {
    MESSAGE("cannot make this kind of file here: skipped (" << reason << ")");
    return;
  }
  LogCapture log;
  ::alarm(10);  // a read that blocks or runs away ends the test process
  DiskReadResult r = cache.read(sha256(kEntryKey), kEntryKey);
  ::alarm(0);
  CHECK(r.lookup == DiskLookup::kInvalid);
  CHECK(log.warnings_with("kernel cache: ignoring the invalid entry " + path + ": " + reason +
                          "; it will be rebuilt") == 1);
  if (!rewrite) return;
  REQUIRE(cache.write(sha256(kEntryKey), kEntryKey, kEntryPayload));
  CHECK(is_regular_0600(path));
  CHECK(cache.read(sha256(kEntryKey), kEntryKey).payload == kEntryPayload);
}

bool link_to(const std::string& target, const std::string& path) {
  return ::symlink(target.c_str(), path.c_str()) == 0;
}

}  // namespace

TEST_CASE("entry file: a symbolic link to /dev/zero or /dev/urandom is a quick miss") {
  const std::string reason = "it is a symbolic link, not a regular file";
  check_refused_entry([](const std::string& p) { return link_to("/dev/zero", p); }, reason);
  check_refused_entry([](const std::string& p) { return link_to("/dev/urandom", p); }, reason);
  check_refused_entry([](const std::string& p) { return link_to("/nonexistent", p); }, reason);
}

TEST_CASE("entry file: a link to a valid entry is not followed, nor written through") {
  TempDir elsewhere;
  std::string target = elsewhere.path("entry");
  write_file(target, encode_disk_entry(sha256(kEntryKey), kEntryKey, "someone else's code"));
  check_refused_entry([&](const std::string& p) { return link_to(target, p); },
                      "it is a symbolic link, not a regular file");
  // The rewrite replaced the link: the file it pointed at is as it was.
  CHECK(read_file(target) ==
        encode_disk_entry(sha256(kEntryKey), kEntryKey, "someone else's code"));
}

TEST_CASE("entry file: a FIFO is a miss at once, not a read that waits for a writer") {
  check_refused_entry([](const std::string& p) { return ::mkfifo(p.c_str(), 0600) == 0; },
                      "it is a FIFO, not a regular file");
}

TEST_CASE("entry file: a device node or a socket is a miss, never opened") {
  // Root only (mknod); the node is /dev/null's.
  check_refused_entry(
      [](const std::string& p) {
        return running_as_root() && ::mknod(p.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0;
      },
      "it is a character device, not a regular file");
  check_refused_entry(
      [](const std::string& p) {
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un addr {};
        addr.sun_family = AF_UNIX;
        if (fd < 0 || p.size() >= sizeof(addr.sun_path)) return false;
        std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
        bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
        ::close(fd);
        return bound;
      },
      "it is a socket, not a regular file");
}

TEST_CASE("entry file: a folder at an entry's name is a miss, which the write cannot replace") {
  check_refused_entry([](const std::string& p) { return ::mkdir(p.c_str(), 0700) == 0; },
                      "it is a folder, not a regular file", /*rewrite=*/false);
}

TEST_CASE("entry file: a file over the cap is a miss without being read") {
  // The default cap, on a sparse file (no disk used, and too large to read in a test's time).
  check_refused_entry(
      [](const std::string& p) {
        write_file(p, "");
        return ::truncate(p.c_str(), static_cast<off_t>(kMaxEntryBytes + 1)) == 0;
      },
      "it holds 268435457 bytes, over the 268435456 bytes an entry may hold");
  // A small cap: the limit itself is read, one byte more is not.
  TempDir dir;
  write_file(dir.path("at"), std::string(4096, 'a'));
  write_file(dir.path("over"), std::string(4097, 'a'));
  CacheFileRead at = read_cache_file(dir.path("at"), 4096);
  CHECK(at.kind == CacheFileRead::Kind::kRead);
  CHECK(at.data.size() == 4096);
  CacheFileRead over = read_cache_file(dir.path("over"), 4096);
  CHECK(over.kind == CacheFileRead::Kind::kRefused);
  CHECK(over.problem == "it holds 4097 bytes, over the 4096 bytes an entry may hold");
}

TEST_CASE("entry file: an entry over the cap is not written") {
  TempDir dir;
  DiskCache cache(dir.path(), /*quiet_writes=*/false, /*max_entry_bytes=*/2048);
  LogCapture log;
  CHECK_FALSE(cache.write(sha256(kEntryKey), kEntryKey, kEntryPayload));  // 3000 + header
  CHECK(list_files(dir.path()).empty());
  CHECK(log.warnings_with("kernel cache") == 0);  // not a fault of the folder
  CHECK(cache.write(sha256(kEntryKey), kEntryKey, "small"));
}

TEST_CASE("entry file: a read stops at the size fstat gave, not at end of file") {
  // /proc files are regular files of size 0 that read as text: nothing is read.
  CacheFileRead r = read_cache_file("/proc/self/status", kMaxEntryBytes);
  CHECK(r.kind == CacheFileRead::Kind::kRead);
  CHECK(r.data.empty());
  CHECK(read_cache_file("/nonexistent/entry", kMaxEntryBytes).kind ==
        CacheFileRead::Kind::kAbsent);
}

TEST_CASE("entry file: a temporary name already taken is neither written through nor removed") {
  TempDir dir;
  write_file(dir.path("victim"), "untouched");
  REQUIRE(link_to(dir.path("victim"), dir.path(".tmp-taken")));
  std::string failure = replace_cache_file(dir.path("entry"), dir.path(".tmp-taken"), "data");
  CHECK(failure == "cannot write " + dir.path(".tmp-taken") + " (File exists)");
  CHECK(read_file(dir.path("victim")) == "untouched");
  struct stat st {};
  CHECK(::lstat(dir.path(".tmp-taken").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(::lstat(dir.path("entry").c_str(), &st) != 0);
  // A free name: written 0600 and renamed into place, the temporary name gone.
  CHECK(replace_cache_file(dir.path("entry"), dir.path(".tmp-free"), "data").empty());
  CHECK(read_file(dir.path("entry")) == "data");
  CHECK(is_regular_0600(dir.path("entry")));
  CHECK(::lstat(dir.path(".tmp-free").c_str(), &st) != 0);
}
