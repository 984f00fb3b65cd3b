// The trust rule for cache folders (jit/cache/folder_trust.h): a private folder is trusted at
// its resolved path; a folder that others or a foreign group can write, or that belongs to
// another user, is refused, on the cache folder or on any folder above it; a symbolic link is
// judged by where it leads; created folders are 0700 whatever the umask; and a DiskCache on a
// refused folder warns once, reads nothing and writes nothing.
#include "jit/cache/folder_trust.h"

#include <doctest/doctest.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "cache_test_util.h"
#include "jit/cache/disk_cache.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::testing;

namespace {

using Verdict = FolderTrust::Verdict;

constexpr uid_t kNobody = 65534;  // another user, in Debian's passwd

void make_folder(const std::string& path, mode_t mode) {
  REQUIRE(::mkdir(path.c_str(), 0700) == 0);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

void check_refused(const std::string& dir, const std::string& folder, const std::string& why) {
  FolderTrust t = check_folder_trust(dir);
  CHECK(t.verdict == Verdict::kRefused);
  CHECK(t.folder == folder);
  CHECK(t.reason == why);
  CHECK(t.resolved.empty());
}

// Whether the user's primary group is named as the user and has no other member (the
// user-private-group scheme), read here from /etc/group through the C library.
bool primary_group_is_private() {
  struct passwd* pw = ::getpwuid(::geteuid());
  if (!pw) return false;
  struct group* gr = ::getgrgid(pw->pw_gid);
  return gr && std::strcmp(gr->gr_name, pw->pw_name) == 0 && gr->gr_mem[0] == nullptr;
}

const std::string kTrustKey = "plaidml artifact\nkernel trust\n";

}  // namespace

TEST_CASE("folder trust: the user's private folder is trusted, and absent folders below it pass") {
  TempDir dir;  // mkdtemp: 0700, the user's, under /tmp (root's, sticky)
  FolderTrust t = check_folder_trust(dir.path());
  CHECK(t.verdict == Verdict::kTrusted);
  CHECK(t.resolved == dir.path());
  t = check_folder_trust(dir.path("not/yet"));
  CHECK(t.verdict == Verdict::kAbsent);
  CHECK(t.resolved.empty());
}

TEST_CASE("folder trust: a folder others can write is refused, and so is every folder below") {
  TempDir dir;
  make_folder(dir.path("mine"), 0700);
  REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);
  check_refused(dir.path(), dir.path(), "is writable by others (mode 0777)");
  check_refused(dir.path("mine"), dir.path(), "is writable by others (mode 0777)");
  // Before anything is created: the folders that exist already are checked.
  check_refused(dir.path("mine/not/yet"), dir.path(), "is writable by others (mode 0777)");
  make_folder(dir.path("mine/open"), 0757);
  REQUIRE(::chmod(dir.path().c_str(), 0700) == 0);
  check_refused(dir.path("mine/open/cache"), dir.path("mine/open"),
                "is writable by others (mode 0757)");
}

TEST_CASE("folder trust: a folder its group can write is refused unless the group is private") {
  TempDir dir;
  make_folder(dir.path("shared"), 0770);
  if (primary_group_is_private()) {
    CHECK(check_folder_trust(dir.path("shared")).verdict == Verdict::kTrusted);
  } else {
    check_refused(dir.path("shared"), dir.path("shared"),
                  "is writable by its group (gid " + std::to_string(::getegid()) +
                      ", mode 0770)");
  }
  if (!running_as_root()) {
    MESSAGE("not root: cannot give a folder to a group of another user");
    return;
  }
  REQUIRE(::chown(dir.path("shared").c_str(), static_cast<uid_t>(-1), kNobody) == 0);
  check_refused(dir.path("shared/cache"), dir.path("shared"),
                "is writable by its group (gid 65534, mode 0770)");
}

TEST_CASE("folder trust: a sticky folder is trusted only when it is root's, like /tmp") {
  TempDir dir;
  make_folder(dir.path("sticky"), 01777);
  if (running_as_root()) {
    CHECK(check_folder_trust(dir.path("sticky")).verdict == Verdict::kTrusted);
    CHECK(check_folder_trust(dir.path("sticky/cache")).verdict == Verdict::kAbsent);
  } else {
    check_refused(dir.path("sticky"), dir.path("sticky"), "is writable by others (mode 1777)");
  }
}

TEST_CASE("folder trust: a folder of another user is refused, and so is every folder below") {
  if (!running_as_root()) {
    MESSAGE("not root: cannot make a folder that belongs to another user");
    return;
  }
  TempDir dir;
  make_folder(dir.path("theirs"), 0755);
  make_folder(dir.path("theirs/mine"), 0700);
  REQUIRE(::chown(dir.path("theirs").c_str(), kNobody, kNobody) == 0);
  check_refused(dir.path("theirs"), dir.path("theirs"), "belongs to another user (uid 65534)");
  check_refused(dir.path("theirs/mine"), dir.path("theirs"),
                "belongs to another user (uid 65534)");
}

TEST_CASE("folder trust: root's folders above the user's are trusted (/, /usr)") {
  CHECK(check_folder_trust("/").verdict == Verdict::kTrusted);
  CHECK(check_folder_trust("/usr").verdict == Verdict::kTrusted);
}

TEST_CASE("folder trust: a symbolic link is judged by where it leads, and resolved once") {
  TempDir dir;
  make_folder(dir.path("real"), 0700);
  make_folder(dir.path("open"), 0777);
  REQUIRE(::symlink(dir.path("real").c_str(), dir.path("link").c_str()) == 0);
  REQUIRE(::symlink(dir.path("open").c_str(), dir.path("to-open").c_str()) == 0);
  FolderTrust t = check_folder_trust(dir.path("link"));
  CHECK(t.verdict == Verdict::kTrusted);
  CHECK(t.resolved == dir.path("real"));  // what the cache uses from then on
  check_refused(dir.path("to-open"), dir.path("open"), "is writable by others (mode 0777)");
  check_refused(dir.path("to-open/cache"), dir.path("open"), "is writable by others (mode 0777)");
  // A link in an open folder to a private one leads to the private one: the link is read once,
  // and changing it later does not move this process.
  REQUIRE(::symlink(dir.path("real").c_str(), dir.path("open/link").c_str()) == 0);
  t = check_folder_trust(dir.path("open/link"));
  CHECK(t.verdict == Verdict::kTrusted);
  CHECK(t.resolved == dir.path("real"));
}

TEST_CASE("folder trust: a path through a regular file is absent: no folder can be made") {
  TempDir dir;
  write_file(dir.path("file"), "");
  CHECK(check_folder_trust(dir.path("file")).verdict == Verdict::kAbsent);
  CHECK(check_folder_trust(dir.path("file/cache")).verdict == Verdict::kAbsent);
  CHECK(create_private_folders(dir.path("file/cache")) == ENOTDIR);
  CHECK(create_private_folders(dir.path("file")) == ENOTDIR);
}

TEST_CASE("folder trust: created folders are 0700 even with umask 0, existing ones kept") {
  TempDir dir;
  make_folder(dir.path("kept"), 0755);
  mode_t old_umask = ::umask(0);
  int err = create_private_folders(dir.path("kept/a/b/c"));
  ::umask(old_umask);
  CHECK(err == 0);
  CHECK(mode_of(dir.path("kept")) == 0755);
  for (const char* sub : {"kept/a", "kept/a/b", "kept/a/b/c"}) {
    CAPTURE(sub);
    CHECK(mode_of(dir.path(sub)) == 0700);
  }
  CHECK(create_private_folders(dir.path("kept/a/b/c")) == 0);  // all there: nothing to do
}

TEST_CASE("disk cache: folders are made 0700 and entries 0600, whatever the umask") {
  TempDir dir;
  DiskCache cache(dir.path("cache/kernels"));
  mode_t old_umask = ::umask(0);
  bool written = cache.write(sha256(kTrustKey), kTrustKey, "code");
  ::umask(old_umask);
  REQUIRE(written);
  CHECK(mode_of(dir.path("cache")) == 0700);
  CHECK(mode_of(dir.path("cache/kernels")) == 0700);
  CHECK(mode_of(cache.path_of(sha256(kTrustKey))) == 0600);
}

TEST_CASE("disk cache: a refused folder warns once, then is neither read nor written") {
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);
  LogCapture log;
  DiskCache cache(dir.path("kernels"));
  CHECK_FALSE(cache.enabled());
  CHECK(log.warnings_with("kernel cache " + dir.path("kernels") +
                          ": refused, running without the disk cache: the folder " +
                          dir.path() + " is writable by others (mode 0777)") == 1);
  CHECK(log.warnings_with("the cache holds code this process runs (each folder on its path "
                          "must be yours or root's and writable by no one else; set "
                          "PLAIDML_CACHE_DIR to such a folder)") == 1);
  CHECK_FALSE(cache.write(sha256(kTrustKey), kTrustKey, "code"));
  CHECK(cache.read(sha256(kTrustKey), kTrustKey).lookup == DiskLookup::kAbsent);
  CHECK(list_files(dir.path()).empty());  // kernels/ never made
  // The plan entries beside the kernels (another DiskCache on the same folder): said once.
  DiskCache plans(dir.path("plans"), /*quiet_writes=*/true);
  CHECK_FALSE(plans.enabled());
  CHECK(log.warnings_with("refused") == 1);
}

TEST_CASE("disk cache: a folder that appears open before the first write is refused then") {
  // As another user could do in /tmp between the context's creation and its first compile.
  TempDir dir;
  DiskCache cache(dir.path("late"));
  CHECK(cache.enabled());  // absent: nothing to refuse yet
  make_folder(dir.path("late"), 0777);
  LogCapture log;
  CHECK_FALSE(cache.write(sha256(kTrustKey), kTrustKey, "code"));
  CHECK(log.warnings_with("the folder " + dir.path("late") + " is writable by others") == 1);
  CHECK_FALSE(cache.enabled());
  CHECK(list_files(dir.path("late")).empty());
}
