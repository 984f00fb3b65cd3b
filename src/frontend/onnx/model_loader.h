// Reading an ONNX model: protobuf parsing with the ONNX package's message classes, from bytes or
// from a file (parsed as it is read; its external data is mapped separately, external_data.h).
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace plaidml::onnx_import {

struct LoadedModel {
  std::shared_ptr<onnx::ModelProto> model;
  std::string folder;  // the model file's folder; "" for bytes
};

// Throws INVALID_ARGUMENT for bytes that are not a model (truncated, corrupt), IO_ERROR for a
// file that cannot be read.
LoadedModel parse_model_bytes(const void* data, size_t size);
LoadedModel load_model_file(const std::string& path);

}  // namespace plaidml::onnx_import
