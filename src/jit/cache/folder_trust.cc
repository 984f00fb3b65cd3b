#include "jit/cache/folder_trust.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "core/base/logging.h"

namespace plaidml::jit {
namespace {

// The user-private-group scheme (Debian, Fedora): each user has a group of their own name with
// no other members, and a umask of 002 then makes their folders group-writable to nobody else.
bool is_private_group(gid_t gid) {
  std::vector<char> buffer(size_t{1} << 16);
  struct passwd pw {};
  struct passwd* user = nullptr;
  if (::getpwuid_r(::geteuid(), &pw, buffer.data(), buffer.size() / 2, &user) != 0 || !user ||
      user->pw_gid != gid) {
    return false;
  }
  struct group gr {};
  struct group* group = nullptr;
  char* rest = buffer.data() + buffer.size() / 2;
  if (::getgrgid_r(gid, &gr, rest, buffer.size() / 2, &group) != 0 || !group ||
      std::strcmp(group->gr_name, user->pw_name) != 0) {
    return false;
  }
  for (char** member = group->gr_mem; *member; ++member) {
    if (std::strcmp(*member, user->pw_name) != 0) return false;
  }
  return true;
}

// Why someone other than the user (or root) could change what is in the folder st describes
// (an lstat), completing "the folder X ..."; "" when nobody could.
std::string untrusted_because(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";  // only when changed since realpath
  if (!S_ISDIR(st.st_mode)) return "is not a folder";
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return fmt::format("belongs to another user (uid {})", st.st_uid);
  }
  unsigned mode = st.st_mode & 07777;
  if (st.st_uid == 0 && (mode & S_ISVTX)) return "";  // like /tmp
  if (mode & S_IWOTH) return fmt::format("is writable by others (mode {:04o})", mode);
  if ((mode & S_IWGRP) && !is_private_group(st.st_gid)) {
    return fmt::format("is writable by its group (gid {}, mode {:04o})", st.st_gid, mode);
  }
  return "";
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

FolderTrust refused(std::string folder, std::string reason) {
  FolderTrust t;
  t.verdict = FolderTrust::Verdict::kRefused;
  t.folder = std::move(folder);
  t.reason = std::move(reason);
  return t;
}

// The deepest existing part of dir with its symbolic links resolved, or refused() when a part
// cannot be looked at (a folder on the way that the user may not search).
FolderTrust resolve_existing(const std::string& dir, bool* whole) {
  std::string path = dir;
  *whole = true;
  for (;;) {
    // Owned at once: copying it into a string may throw bad_alloc, which must not leak it.
    if (std::unique_ptr<char, void (*)(void*)> real(::realpath(path.c_str(), nullptr), std::free);
        real) {
      FolderTrust t;
      t.resolved = real.get();
      return t;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
      return refused(path, fmt::format("cannot be checked ({})", std::strerror(errno)));
    }
    if (path == "/" || path == ".") return refused(path, "cannot be resolved");
    path = parent_of(path);
    *whole = false;
  }
}

}  // namespace

FolderTrust check_folder_trust(const std::string& dir) {
  bool whole = false;
  FolderTrust trust = resolve_existing(dir, &whole);
  if (trust.verdict == FolderTrust::Verdict::kRefused) return trust;
  struct stat st {};
  // What exists of dir ends in a file: no folder can be made there, nothing can be read.
  bool is_folder = ::stat(trust.resolved.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  trust.verdict =
      whole && is_folder ? FolderTrust::Verdict::kTrusted : FolderTrust::Verdict::kAbsent;
  if (!is_folder) trust.resolved = parent_of(trust.resolved);
  for (std::string folder = trust.resolved;; folder = parent_of(folder)) {
    if (::lstat(folder.c_str(), &st) != 0) {
      return refused(folder, fmt::format("cannot be checked ({})", std::strerror(errno)));
    }
    std::string why = untrusted_because(st);
    if (!why.empty()) return refused(folder, why);
    if (folder == "/") break;
  }
  if (trust.verdict != FolderTrust::Verdict::kTrusted) trust.resolved.clear();
  return trust;
}

int create_private_folders(const std::string& dir) {
  // Each prefix that ends before a '/', then dir itself.
  for (size_t end = 1; end <= dir.size(); ++end) {
    if (end < dir.size() && dir[end] != '/') continue;
    std::string prefix = dir.substr(0, end);
    struct stat st {};
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return ENOTDIR;
      continue;
    }
    if (errno != ENOENT) return errno;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  }
  return 0;
}

FolderTrust prepare_folder(const std::string& dir, bool create, int* create_error) {
  FolderTrust trust = check_folder_trust(dir);
  if (!create || trust.verdict != FolderTrust::Verdict::kAbsent) return trust;
  if (int err = create_private_folders(dir)) {
    *create_error = err;
    return trust;
  }
  return check_folder_trust(dir);
}

void warn_untrusted_folder(const char* who, const std::string& cache_dir,
                           const FolderTrust& trust) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    first = warned.insert(trust.folder).second;
  }
  logger().log(first ? LogLevel::kWarn : LogLevel::kDebug,
               "{} {}: refused, running without the disk cache: the folder {} {}, and the cache "
               "holds code this process runs (each folder on its path must be yours or root's "
               "and writable by no one else; set PLAIDML_CACHE_DIR to such a folder)",
               who, cache_dir, trust.folder, trust.reason);
}

}  // namespace plaidml::jit
