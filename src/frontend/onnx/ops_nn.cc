// ONNX operators: nn group.
#include "converters.h"

namespace plaidml::onnx_import {

std::vector<ConverterEntry> nn_converters() { return {}; }

}  // namespace plaidml::onnx_import
