#include "model_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <google/protobuf/io/coded_stream.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include "import_error.h"

namespace plaidml::onnx_import {

LoadedModel parse_model_bytes(const void* data, size_t size) {
  if (size > static_cast<size_t>(INT_MAX)) {
    invalid("the model is {} bytes; a protobuf message is at most 2 GiB (store large weights as "
            "external data)", size);
  }
  google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t*>(data),
                                                static_cast<int>(size));
  stream.SetTotalBytesLimit(INT_MAX);
  auto model = std::make_shared<onnx::ModelProto>();
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    invalid("the data is not an ONNX model: the protobuf is truncated or corrupt ({} bytes)", size);
  }
  if (!model->has_graph() && model->ir_version() == 0) {
    invalid("the data is not an ONNX model: it has no graph and no IR version ({} bytes)", size);
  }
  return LoadedModel{std::move(model), ""};
}

LoadedModel load_model_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) io_error("cannot open ONNX model '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    io_error("ONNX model '{}' is not a regular file", path);
  }
  std::vector<char> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      close(fd);
      io_error("cannot read ONNX model '{}'", path);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  LoadedModel loaded = parse_model_bytes(bytes.data(), bytes.size());
  size_t slash = path.rfind('/');
  loaded.folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return loaded;
}

}  // namespace plaidml::onnx_import
