// ONNX operators: reduce group.
#include "converters.h"

namespace plaidml::onnx_import {

std::vector<ConverterEntry> reduce_converters() { return {}; }

}  // namespace plaidml::onnx_import
