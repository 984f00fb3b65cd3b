// One entry file of the disk cache, read and written without trusting what is at its path.
//
// A read opens the path without following a symbolic link and without blocking (a FIFO opens at
// once), and accepts only a regular file within a size cap; it reads the size fstat gave, never
// until end of file, so a file that grows (or /dev/zero behind a link) cannot hold the reader.
// A write goes to a new temporary file in the same folder (O_CREAT | O_EXCL | O_NOFOLLOW, mode
// 0600), then rename() puts it in place: a reader sees the old entry or the new one, never part
// of one, and whatever stood at the name (a link, a FIFO) is replaced, not written through.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace plaidml::jit {

// The largest entry the disk cache reads or writes. The largest real entries seen are a few
// MiB (a plan entry of BERT: 3.4 MB; a network's kernels: 2.4 MB), and the keys inside them,
// printed programs and kernels, grow with the model; 256 MiB leaves two orders of magnitude for
// that while bounding what a damaged or planted file can make the reader allocate.
inline constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

struct CacheFileRead {
  enum class Kind {
    kRead,     // data holds the file's bytes
    kAbsent,   // nothing at the path
    kRefused,  // not a regular file, or over the cap: problem says which ("is a FIFO")
    kError,    // an I/O error: problem holds its text
  };
  Kind kind = Kind::kAbsent;
  std::string data;
  std::string problem;
};

// Reads the regular file at path if it holds at most max_bytes.
CacheFileRead read_cache_file(const std::string& path, uint64_t max_bytes);

// A temporary name in folder, unique to the process, thread and call, hidden from `ls`.
std::string cache_temp_name(const std::string& folder, std::string_view tag);

// Writes data to path through the temporary file temp (a new name in path's folder), renamed
// onto path. Returns "" or what failed ("cannot write <temp> (No space left on device)"); a
// failure leaves no temporary file behind.
std::string replace_cache_file(const std::string& path, const std::string& temp,
                               std::string_view data);

}  // namespace plaidml::jit
