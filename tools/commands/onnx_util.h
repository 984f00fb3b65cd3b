// ONNX models in the CLI, through libplaidml_onnx's C API (include/plaidml/onnx.h). Without the
// library (PLAIDML_BUILD_ONNX=OFF) every call here fails with a message saying so, so a .onnx
// path is never mistaken for Tile text.
#pragma once

#include <string>
#include <vector>

#include "args.h"
#include "capi_util.h"
#include "result.h"

namespace plaidml_cli {

// Whether the tool treats this path as an ONNX model: its name ends in ".onnx" (any case).
bool is_onnx_path(const std::string& path);

// Imports the model with each --dim fixed. Errors read "PATH: <the importer's message>".
Result<ProgramPtr> load_onnx_program(const std::string& path, const std::vector<DimSpec>& dims);

// plaidml_onnx_describe_file's report on the model.
Result<std::string> describe_onnx_model(const std::string& path);

}  // namespace plaidml_cli
