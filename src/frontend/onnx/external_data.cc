#include "external_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <string_view>

#include "import_error.h"

namespace plaidml::onnx_import {

struct ExternalData::Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base != nullptr && base != MAP_FAILED) munmap(base, size);
  }
};

namespace {

std::string canonical(const std::string& path) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) == nullptr) return "";
  return buffer;
}

bool has_parent_step(std::string_view location) {
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string_view::npos) end = location.size();
    if (location.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::shared_ptr<ExternalData::Mapping> ExternalData::map_file(const std::string& tensor,
                                                              const std::string& location) {
  if (folder_.empty()) {
    invalid("tensor '{}' is stored in external file '{}', but the model was given as bytes; "
            "import it from its file (plaidml_onnx_import_file)", tensor, location);
  }
  if (location.empty() || location[0] == '/' || has_parent_step(location)) {
    invalid("tensor '{}': external data location '{}' is refused: it must be a relative path "
            "inside the model's folder", tensor, location);
  }
  std::string path = folder_ + "/" + location;
  std::string real = canonical(path);
  if (real.empty()) {
    io_error("tensor '{}': cannot open external data file '{}': {}", tensor, path,
             std::strerror(errno));
  }
  std::string root = canonical(folder_);
  if (root.empty() || real.compare(0, root.size() + 1, root + "/") != 0) {
    invalid("tensor '{}': external data file '{}' leads out of the model's folder (to '{}')",
            tensor, location, real);
  }
  if (auto it = files_.find(real); it != files_.end()) return it->second;
  int fd = open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) io_error("tensor '{}': cannot open external data file '{}'", tensor, path);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    io_error("tensor '{}': external data '{}' is not a regular file", tensor, path);
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.st_size);
  if (mapping->size > 0) {
    mapping->base = mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
  }
  close(fd);
  if (mapping->base == MAP_FAILED) {
    mapping->base = nullptr;
    io_error("tensor '{}': cannot map external data file '{}'", tensor, path);
  }
  files_[real] = mapping;
  return mapping;
}

ExternalData::Bytes ExternalData::read(const std::string& tensor, const std::string& location,
                                       int64_t offset, int64_t length, uint64_t expected) {
  auto mapping = map_file(tensor, location);
  uint64_t size = mapping->size;
  if (offset < 0 || static_cast<uint64_t>(offset) > size) {
    invalid("tensor '{}': external data offset {} is past the end of '{}' ({} bytes)", tensor,
            offset, location, size);
  }
  uint64_t available = size - static_cast<uint64_t>(offset);
  uint64_t want = length < 0 ? available : static_cast<uint64_t>(length);
  if (want > available) {
    invalid("tensor '{}': external data range [{}, {}) is past the end of '{}' ({} bytes)", tensor,
            offset, static_cast<uint64_t>(offset) + want, location, size);
  }
  if (want != expected) {
    invalid("tensor '{}': its dims need {} bytes, but its external data holds {}", tensor,
            expected, want);
  }
  Bytes bytes;
  bytes.data = static_cast<const char*>(mapping->base == nullptr ? "" : mapping->base) + offset;
  bytes.owner = mapping;
  return bytes;
}

}  // namespace plaidml::onnx_import
