// Tensors stored outside the model file (ONNX external data): resolved relative to the model's
// folder and mapped with mmap, so a weight is read in place, never copied twice. A location that
// is absolute, leads out of the folder ("..", or a symlink pointing elsewhere), or a range past
// the end of its file is refused before anything is mapped.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace plaidml::onnx_import {

class ExternalData {
 public:
  // folder: the model file's folder; "" when the model came as bytes (then every external
  // tensor is refused).
  explicit ExternalData(std::string folder) : folder_(std::move(folder)) {}

  struct Bytes {
    const void* data = nullptr;
    std::shared_ptr<const void> owner;  // keeps the mapping alive
  };
  // length bytes at offset of file `location` (length < 0: to the end of the file, and then
  // `expected` must match it). Throws INVALID_ARGUMENT / IO_ERROR naming tensor and path.
  Bytes read(const std::string& tensor, const std::string& location, int64_t offset,
             int64_t length, uint64_t expected);
  // Whether any tensor was read from an external file.
  bool used() const { return !files_.empty(); }

 private:
  struct Mapping;
  std::shared_ptr<Mapping> map_file(const std::string& tensor, const std::string& location);
  std::string folder_;
  std::map<std::string, std::shared_ptr<Mapping>> files_;  // by canonical path
};

}  // namespace plaidml::onnx_import
