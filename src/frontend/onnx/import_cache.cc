#include "import_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>

namespace plaidml::onnx_import {

std::optional<std::string> import_cache_key(const std::string& path, const ImportOptions& options) {
  if (!options.values.empty()) return std::nullopt;
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  struct stat st {};
  if (!real || ::stat(real.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string key = fmt::format(
      "plaidml onnx import\nimporter {}\nplaidml {}\nfile {}\ndevice {} inode {} size {}\n"
      "modified {}.{:09} changed {}.{:09}\nchannels_last {}\n",
      kImporterRevision, plaidml_version(), real.get(), st.st_dev, st.st_ino, st.st_size,
      st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
      options.channels_last ? 1 : 0);
  for (const auto& [name, size] : options.dims) key += fmt::format("dim {} {}\n", name, size);
  return key;
}

}  // namespace plaidml::onnx_import
