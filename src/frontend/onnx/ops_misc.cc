// ONNX operators: misc group.
#include "converters.h"

namespace plaidml::onnx_import {

std::vector<ConverterEntry> misc_converters() { return {}; }

}  // namespace plaidml::onnx_import
