#include "cli_harness.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace plaidml_cli::testing {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  dir_ = std::filesystem::temp_directory_path() /
         ("plaidml_cli_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

CliResult run_cli(const ScratchDir& dir, const std::string& args) {
  std::string out = dir.path(".stdout");
  std::string err = dir.path(".stderr");
  std::string cmd = "cd '" + dir.path("") + "' && '" PLAIDML_CLI_PATH "' " + args + " >'" + out +
                    "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string data_file(const std::string& name) {
  return std::string(PLAIDML_SOURCE_DIR) + "/tests/data/" + name;
}

std::string example_file(const std::string& name) {
  return std::string(PLAIDML_SOURCE_DIR) + "/examples/tile/" + name;
}

namespace {

template <typename T>
NpyArray typed_array(Dtype dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  REQUIRE(static_cast<int64_t>(values.size()) == a.element_count());
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

}  // namespace

NpyArray f32_array(std::vector<int64_t> shape, const std::vector<float>& values) {
  return typed_array(Dtype::F32, std::move(shape), values);
}

NpyArray i32_array(std::vector<int64_t> shape, const std::vector<int32_t>& values) {
  return typed_array(Dtype::I32, std::move(shape), values);
}

NpyArray i64_array(std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  return typed_array(Dtype::I64, std::move(shape), values);
}

void write_array(const std::string& path, const NpyArray& array) {
  REQUIRE(write_npy(path, array).ok());
}

NpyArray read_array(const std::string& path) {
  auto a = read_npy(path);
  if (!a) FAIL(a.error().message);
  return *a;
}

std::vector<double> values_of(const NpyArray& array) {
  std::vector<double> out;
  for (int64_t i = 0; i < array.element_count(); ++i) {
    out.push_back(load_as_double(array.dtype, array.data.data(), i));
  }
  return out;
}

std::string field(const std::string& out, const std::string& prefix, const std::string& key) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    size_t at = line.find(" " + key + "=");
    if (at == std::string::npos) continue;
    size_t start = at + key.size() + 2;
    return line.substr(start, line.find(' ', start) - start);
  }
  return "<no " + key + "= in a line starting '" + prefix + "'>";
}

}  // namespace plaidml_cli::testing
