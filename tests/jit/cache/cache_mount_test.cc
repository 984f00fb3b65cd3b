// The cache folder on a full disk and on a read-only one, for real: a tiny tmpfs mounted in a
// private mount namespace (unshare -m as root, unshare -rm otherwise), in which cache_child runs
// the C API. Each gives one warning and the right numbers, and leaves no temporary file. Where
// the namespace cannot be made (no unshare, no privilege), the tests say so and pass; the
// in-process RLIMIT_FSIZE test (disk_cache_test.cc) still covers a failing write there.
#include <doctest/doctest.h>

#ifdef PLAIDML_CACHE_CHILD

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "cache_test_util.h"

using namespace plaidml::testing;

namespace {

struct MountRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr of the script and of the children
};

// Runs script under sh in a private mount namespace, with $1 = dir and $2 = cache_child; the
// script mounts what it needs on $1 and exits 77 when it cannot. 60 s at most.
MountRun run_in_mount_namespace(const std::string& dir, const std::string& script) {
  std::string unshare = running_as_root() ? "unshare -m" : "unshare -rm";
  std::string command = "timeout 60 " + unshare + " sh -c '" + script + "' sh '" + dir + "' '" +
                        PLAIDML_CACHE_CHILD + "' 2>&1";
  MountRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char chunk[4096];
  for (size_t n; (n = ::fread(chunk, 1, sizeof(chunk), pipe)) > 0;) run.out.append(chunk, n);
  int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// Whether this machine lets the tests mount a tmpfs in a namespace of their own.
bool can_mount_tmpfs() {
  TempDir probe;
  MountRun r = run_in_mount_namespace(probe.path(), "mount -t tmpfs -o size=4k probe \"$1\"");
  if (r.exit_code != 0) MESSAGE("no private tmpfs here (" << r.out << "): skipped");
  return r.exit_code == 0;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cache on a full disk: a warning, the right numbers, no temporary file left") {
  if (!can_mount_tmpfs()) return;
  TempDir dir;
  // One page, taken by a filler file: the folders fit (tmpfs folders take no pages), no entry
  // does, whatever the size of the code.
  MountRun r = run_in_mount_namespace(dir.path(), R"sh(
mount -t tmpfs -o size=4k,mode=0700 full "$1" || exit 77
printf x > "$1/filler" || exit 77
"$2" "$1" 16; rc=$?
echo "left: $(ls -A "$1"/kernels "$1"/plans | grep -c "^[.]tmp-")"
exit $rc)sh");
  INFO(r.out);
  REQUIRE(r.exit_code != 77);
  CHECK(r.exit_code == 0);  // cache_child checked every product
  CHECK(count_of(r.out, "ok=1 ") == 1);
  CHECK(count_of(r.out, "disk_writes=0 disk_write_failures=1 ") == 1);
  CHECK(count_of(r.out, "[plaidml warning]") == 1);
  CHECK(count_of(r.out, "[plaidml warning] kernel cache " + dir.path() + "/kernels: cannot write " +
                            dir.path() + "/kernels/.tmp-") == 1);
  CHECK(count_of(r.out, "(No space left on device); running without saving compiled kernels") ==
        1);
  CHECK(count_of(r.out, "left: 0") == 1);
}

TEST_CASE("cache on a read-only disk: entries are read, new ones warn, numbers stay right") {
  if (!can_mount_tmpfs()) return;
  TempDir dir;
  // Filled while writable, then remounted read-only: the same shape hits, a new one cannot be
  // stored.
  MountRun r = run_in_mount_namespace(dir.path(), R"sh(
mount -t tmpfs -o size=1m,mode=0700 ro "$1" || exit 77
"$2" "$1" 16 >/dev/null || exit 1
mount -o remount,ro "$1" || exit 77
"$2" "$1" 16 || exit 2
"$2" "$1" 8 || exit 3
echo "entries: $(ls -A "$1"/kernels | wc -l)")sh");
  INFO(r.out);
  REQUIRE(r.exit_code != 77);
  CHECK(r.exit_code == 0);
  CHECK(count_of(r.out, "ok=1 compiles=1 kernels_compiled=0 disk_hits=1 ") == 1);
  CHECK(count_of(r.out, "disk_writes=0 disk_write_failures=1 ") == 1);
  CHECK(count_of(r.out, "[plaidml warning]") == 1);
  CHECK(count_of(r.out, "(Read-only file system); running without saving compiled kernels") ==
        1);
  CHECK(count_of(r.out, "entries: 1") == 1);
}

TEST_CASE("cache on a read-only disk with no folder yet: a warning, the right numbers") {
  if (!can_mount_tmpfs()) return;
  TempDir dir;
  MountRun r = run_in_mount_namespace(dir.path(), R"sh(
mount -t tmpfs -o size=64k,mode=0700,ro empty "$1" || exit 77
"$2" "$1" 8)sh");
  INFO(r.out);
  REQUIRE(r.exit_code != 77);
  CHECK(r.exit_code == 0);
  CHECK(count_of(r.out, "ok=1 ") == 1);
  CHECK(count_of(r.out, "[plaidml warning] kernel cache " + dir.path() +
                            "/kernels: cannot create the folder (Read-only file system)") == 1);
}

#endif  // PLAIDML_CACHE_CHILD
