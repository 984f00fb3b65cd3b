// The file names `plaidml run --output-dir` writes: ONNX output names made file names, and
// outputs that would share a file refused before anything is written.
#include "output_files.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace plaidml_cli {
namespace {

TEST_CASE("output file names: '/', '\\\\', ':' and NUL become '_'") {
  CHECK(output_file_name("C") == "C.npy");
  CHECK(output_file_name("logits/BiasAdd:0") == "logits_BiasAdd_0.npy");
  CHECK(output_file_name("a\\b") == "a_b.npy");
  CHECK(output_file_name(std::string("a\0b", 3)) == "a_b.npy");
  CHECK(output_file_name("output.1-x") == "output.1-x.npy");  // legal characters stay
  CHECK(output_file_name("..") == "...npy");  // never a path: the name gets a suffix
}

TEST_CASE("outputs that map to one file are an error naming both") {
  auto files = output_file_names({"y", "a/b", "z"});
  REQUIRE(files.ok());
  CHECK(*files == std::vector<std::string>{"y.npy", "a_b.npy", "z.npy"});
  auto clash = output_file_names({"a/b", "c", "a:b"});
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().code == ExitCode::kRuntime);
  CHECK(clash.error().message ==
        "outputs 'a/b' and 'a:b' would both be written to a_b.npy (characters a file name "
        "cannot hold become '_')");
  CHECK(output_file_names({}).ok());
}

}  // namespace
}  // namespace plaidml_cli
