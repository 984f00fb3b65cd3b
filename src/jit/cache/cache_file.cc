#include "jit/cache/cache_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

#include <fmt/format.h>

namespace plaidml::jit {
namespace {

std::string not_regular(mode_t mode) {
  const char* kind = S_ISLNK(mode)    ? "a symbolic link"
                     : S_ISDIR(mode)  ? "a folder"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "of an unknown kind";
  return fmt::format("it is {}, not a regular file", kind);
}

CacheFileRead failed(CacheFileRead::Kind kind, std::string problem) {
  CacheFileRead r;
  r.kind = kind;
  r.problem = std::move(problem);
  return r;
}

CacheFileRead from_errno(int err) {
  if (err == ENOENT) return {};
  if (err == ELOOP) return failed(CacheFileRead::Kind::kRefused, not_regular(S_IFLNK));
  return failed(CacheFileRead::Kind::kError, std::strerror(err));
}

// Reads exactly the size fstat gave (less if the file shrinks meanwhile), never to end of file.
CacheFileRead read_sized(int fd, size_t size) {
  CacheFileRead r;
  r.kind = CacheFileRead::Kind::kRead;
  r.data.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, r.data.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return from_errno(errno);
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  r.data.resize(done);
  return r;
}

}  // namespace

CacheFileRead read_cache_file(const std::string& path, uint64_t max_bytes) {
  // lstat first, so that a device or FIFO is never opened at all (opening a device may act on
  // it); the open and fstat below catch what changes in between.
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return from_errno(errno);
  if (!S_ISREG(st.st_mode)) return failed(CacheFileRead::Kind::kRefused, not_regular(st.st_mode));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return from_errno(errno);
  CacheFileRead r;
  if (::fstat(fd, &st) != 0) {
    r = from_errno(errno);
  } else if (!S_ISREG(st.st_mode)) {
    r = failed(CacheFileRead::Kind::kRefused, not_regular(st.st_mode));
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    r = failed(CacheFileRead::Kind::kRefused,
               fmt::format("it holds {} bytes, over the {} bytes an entry may hold",
                           static_cast<uint64_t>(st.st_size), max_bytes));
  } else {
    r = read_sized(fd, static_cast<size_t>(st.st_size));
  }
  ::close(fd);
  return r;
}

std::string cache_temp_name(const std::string& folder, std::string_view tag) {
  static std::atomic<uint64_t> counter{0};
  size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return fmt::format("{}/.tmp-{}-{}-{:x}-{}", folder, tag, ::getpid(), tid, counter.fetch_add(1));
}

std::string replace_cache_file(const std::string& path, const std::string& temp,
                               std::string_view data) {
  // O_EXCL also refuses a symbolic link at temp; O_NOFOLLOW says so twice. Not unlinked on
  // failure: whatever is there is not ours.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fmt::format("cannot write {} ({})", temp, std::strerror(errno));
  int err = 0;
  for (size_t done = 0; done < data.size() && err == 0;) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS and full disks may report late
  if (err != 0) {
    ::unlink(temp.c_str());
    return fmt::format("cannot write {} ({})", temp, std::strerror(err));
  }
  // rename() replaces whatever non-folder stands at path, a link included, without following it.
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(temp.c_str());
    return fmt::format("cannot rename {} to {} ({})", temp, path, std::strerror(err));
  }
  return "";
}

}  // namespace plaidml::jit
