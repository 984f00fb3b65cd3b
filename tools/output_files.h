// The file names `plaidml run --output-dir` writes outputs to: <output name>.npy. ONNX output
// names are free text ("logits/BiasAdd:0"), so characters a file name cannot hold become '_';
// two outputs that would land in one file are refused before anything is written.
#pragma once

#include <string>
#include <vector>

#include "result.h"

namespace plaidml_cli {

// "<name>.npy" with '/', '\\', ':' and NUL replaced by '_'. ':' and '\\' are legal on Linux but
// not on Windows or macOS file shares, so they are mapped too, the same on every system.
std::string output_file_name(const std::string& output_name);

// The file name of each output, in order; a runtime error naming both outputs if two would share
// a file.
Result<std::vector<std::string>> output_file_names(const std::vector<std::string>& output_names);

}  // namespace plaidml_cli
