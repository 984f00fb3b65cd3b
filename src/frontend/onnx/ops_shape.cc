// ONNX operators: shape group.
#include "converters.h"

namespace plaidml::onnx_import {

std::vector<ConverterEntry> shape_converters() { return {}; }

}  // namespace plaidml::onnx_import
