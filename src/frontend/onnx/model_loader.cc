#include "model_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "import_error.h"

namespace plaidml::onnx_import {

namespace {

// Protobuf parses almost any bytes into some message: one with neither graph nor IR version is
// not a model.
void check_is_model(const onnx::ModelProto& model, size_t size) {
  if (!model.has_graph() && model.ir_version() == 0) {
    invalid("the data is not an ONNX model: it has no graph and no IR version ({} bytes)", size);
  }
}

// Messages nested deeper than this (graphs in attributes in nodes in graphs ...) are refused
// by the parser: protobuf parses each level with one more frame on the stack. 100 is
// protobuf's own default, said here so that the error message can name it.
constexpr int kMaxNesting = 100;

void limit(google::protobuf::io::CodedInputStream& stream) {
  stream.SetTotalBytesLimit(INT_MAX);
  stream.SetRecursionLimit(kMaxNesting);
}

[[noreturn]] void not_parsed(size_t size) {
  invalid("the data is not an ONNX model: the protobuf is truncated or corrupt, or nests "
          "messages more than {} levels deep ({} bytes)", kMaxNesting, size);
}

}  // namespace

LoadedModel parse_model_bytes(const void* data, size_t size) {
  if (size > static_cast<size_t>(INT_MAX)) {
    invalid("the model is {} bytes; a protobuf message is at most 2 GiB (store large weights as "
            "external data)", size);
  }
  google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t*>(data),
                                                static_cast<int>(size));
  limit(stream);
  auto model = std::make_shared<onnx::ModelProto>();
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) not_parsed(size);
  check_is_model(*model, size);
  return LoadedModel{std::move(model), ""};
}

// The model parsed straight from the file, a block at a time: the file's bytes are never all
// in memory beside the parsed model (for a 100 MB model, 100 MB less at the peak).
LoadedModel load_model_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) io_error("cannot open ONNX model '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    io_error("ONNX model '{}' is not a regular file", path);
  }
  if (st.st_size > static_cast<off_t>(INT_MAX)) {
    close(fd);
    invalid("the model is {} bytes; a protobuf message is at most 2 GiB (store large weights as "
            "external data)", st.st_size);
  }
  auto model = std::make_shared<onnx::ModelProto>();
  bool parsed = false;
  {
    google::protobuf::io::FileInputStream file(fd, 1 << 20);
    google::protobuf::io::CodedInputStream stream(&file);
    limit(stream);
    parsed = model->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
    if (file.GetErrno() != 0) {
      int error = file.GetErrno();
      close(fd);
      io_error("cannot read ONNX model '{}': {}", path, std::strerror(error));
    }
  }
  close(fd);
  if (!parsed) not_parsed(static_cast<size_t>(st.st_size));
  check_is_model(*model, static_cast<size_t>(st.st_size));
  size_t slash = path.rfind('/');
  std::string folder =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return LoadedModel{std::move(model), folder};
}

}  // namespace plaidml::onnx_import
