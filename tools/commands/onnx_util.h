// ONNX models in the CLI, through libplaidml_onnx's C API (include/plaidml/onnx.h). Without the
// library (PLAIDML_BUILD_ONNX=OFF) every call here fails with a message saying so, so a .onnx
// path is never mistaken for Tile text.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "args.h"
#include "capi_util.h"
#include "npy.h"
#include "result.h"

namespace plaidml_cli {

// Whether the tool treats this path as an ONNX model: its name ends in ".onnx" (any case).
bool is_onnx_path(const std::string& path);

// Imports the model with each --dim fixed. Errors read "PATH: <the importer's message>".
Result<ProgramPtr> load_onnx_program(const std::string& path, const std::vector<DimSpec>& dims);

// The contents given for a graph input (its --input array); an error if none was given.
using InputReader = std::function<Result<NpyArray>(const std::string& name)>;

struct BoundOnnxProgram {
  ProgramPtr program;
  std::vector<std::string> bound;  // graph inputs bound to their contents: not program inputs
};

// Imports the model as load_onnx_program does; when its shapes depend on the contents of graph
// inputs (a Reshape's shape fed as an input: plaidml_onnx_needed_inputs_file), binds those to the
// arrays read_input gives (plaidml_onnx_options_set_input_value) and imports that.
Result<BoundOnnxProgram> load_onnx_program_binding(const std::string& path,
                                                   const std::vector<DimSpec>& dims,
                                                   const InputReader& read_input);

// plaidml_onnx_describe_file's report on the model.
Result<std::string> describe_onnx_model(const std::string& path);

}  // namespace plaidml_cli
