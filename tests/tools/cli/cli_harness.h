// Runs the built `plaidml` binary in a scratch directory and captures its exit code, stdout and
// stderr; reads and writes the .npy files around it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "npy.h"

namespace plaidml_cli::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

// Runs `plaidml ARGS` (ARGS is shell text: quote paths with spaces) with the scratch dir as the
// working directory.
CliResult run_cli(const ScratchDir& dir, const std::string& args);

// tests/data/NAME and examples/tile/NAME in the source tree.
std::string data_file(const std::string& name);
std::string example_file(const std::string& name);

NpyArray f32_array(std::vector<int64_t> shape, const std::vector<float>& values);
NpyArray i32_array(std::vector<int64_t> shape, const std::vector<int32_t>& values);
NpyArray i64_array(std::vector<int64_t> shape, const std::vector<int64_t>& values);
void write_array(const std::string& path, const NpyArray& array);
NpyArray read_array(const std::string& path);
std::vector<double> values_of(const NpyArray& array);

// The value of KEY=VALUE in a line of the CLI's output that starts with `prefix`.
std::string field(const std::string& out, const std::string& prefix, const std::string& key);

}  // namespace plaidml_cli::testing
