// `plaidml info model.onnx`: a report on a model, for people (plaidml_onnx_describe_file).
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace plaidml::onnx_import {

// Producer, IR version, opsets, inputs and outputs with types and shapes, op counts, the
// constants' size, every node that would not import (with the reason), and the result of a
// trial import.
std::string describe_model(const std::shared_ptr<onnx::ModelProto>& model,
                           const std::string& folder);

}  // namespace plaidml::onnx_import
