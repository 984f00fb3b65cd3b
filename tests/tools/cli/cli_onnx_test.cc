// `plaidml run/print/info` on ONNX models (tests/data/onnx, written by make_models.py): .npy in,
// values out against hand-computed ones; --dim; the importer's errors; output file names made
// from ONNX names. Built without libplaidml_onnx, a .onnx path must say so instead.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

std::string onnx_model(const std::string& name) { return data_file("onnx/" + name); }

void check_onnx_fails(const CliResult& r, int code, const std::string& message) {
  CHECK(r.exit_code == code);
  CHECK(r.err == "plaidml: error: " + message + "\n");
}

bool has_text(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#ifdef PLAIDML_CLI_HAVE_ONNX

// add_relu.onnx: Y = relu(X + W), X "input.1" f32[batch, 3], W = [[-2, -1, 0], [1, 2, -3]].
TEST_CASE("run an ONNX model: .npy input, Y.npy output, hand-computed values, timings") {
  ScratchDir dir;
  write_array(dir.path("x.npy"), f32_array({2, 3}, {1, 2, 3, -1, -2, 0.5f}));
  std::string m = onnx_model("add_relu.onnx");
  auto r = run_cli(dir, "run '" + m + "' --input input.1=x.npy -o out --repeat 2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  NpyArray y = read_array(dir.path("out/Y.npy"));
  CHECK(y.dtype == Dtype::F32);
  CHECK(y.shape == std::vector<int64_t>{2, 3});
  // [[1-2, 2-1, 3+0], [-1+1, -2+2, 0.5-3]] = [[-1, 1, 3], [0, 0, -2.5]], then relu.
  CHECK(values_of(y) == std::vector<double>{0, 1, 3, 0, 0, 0});
  CHECK(r.out.rfind("program: " + m + " on cpu:0\n", 0) == 0);
  CHECK(has_text(r.out, "compile+run: "));
  CHECK(field(r.out, "cached runs:", "n") == "2");
  CHECK(field(r.out, "cache:", "compiles") == "1");
  CHECK(field(r.out, "cache:", "hits") == "2");
  CHECK(
      has_text(r.out, "output Y: shape=2x3 dtype=f32 min=0 max=3 mean=0.666667 file=out/Y.npy\n"));
}

TEST_CASE("--profile writes a Chrome trace and prints the top kernels, named by ONNX node") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  auto r = run_cli(dir, "run '" + m + "' -i input.1=ones:f32:2x3 --repeat 2 --profile t.json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has_text(r.out, "profile: t.json\n"));
  // add_relu.onnx's nodes have no names: each is named by its first output. One fused kernel.
  CHECK(has_text(r.out, "sum (Add)"));
  CHECK(has_text(r.out, "Y (Relu)"));
  CHECK(has_text(r.out, "kernels: 1 distinct"));
  CHECK(has_text(r.out, "compiles: 1 in"));
  std::ifstream file(dir.path("t.json"));
  std::string trace((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(has_text(trace, "\"traceEvents\""));
  CHECK(has_text(trace, "\"cat\": \"kernel\""));
  auto bad = run_cli(dir, "run '" + m + "' -i input.1=ones:f32:2x3 --profile no/such/dir/t.json");
  CHECK(bad.exit_code == 1);
  CHECK(has_text(bad.err, "no/such/dir/t.json: cannot write the profile"));
}

TEST_CASE("the symbolic batch runs at the input's size: 1 broadcasts against W") {
  ScratchDir dir;
  write_array(dir.path("x.npy"), f32_array({1, 3}, {0.5f, 1.5f, -1}));
  auto r = run_cli(dir, "run '" + onnx_model("add_relu.onnx") + "' -i input.1=x.npy -o .");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // [[-1.5, 0.5, -1], [1.5, 3.5, -4]], then relu.
  CHECK(values_of(read_array(dir.path("Y.npy"))) == std::vector<double>{0, 0.5, 0, 1.5, 3.5, 0});
}

TEST_CASE("--dim batch=2 fixes the dim: a 2x3 input runs, a 1x3 input is an error") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  auto ok = run_cli(dir, "run '" + m + "' --dim batch=2 -i input.1=ones:f32:2x3 -o o");
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(values_of(read_array(dir.path("o/Y.npy"))) == std::vector<double>{0, 0, 1, 2, 3, 0});
  auto bad = run_cli(dir, "run '" + m + "' --dim batch=2 -i input.1=ones:f32:1x3");
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.rfind("plaidml: error: " + m + ": ", 0) == 0);
  CHECK(has_text(bad.err, "'input.1'"));
  CHECK(has_text(bad.err, "f32[1, 3]"));
  CHECK(bad.out.empty());
}

TEST_CASE("an unknown --dim name is an error with the importer's message") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  for (const std::string& cmd :
       {"run '" + m + "' -i input.1=ones:f32:2x3 --dim bogus=2", "print '" + m + "' --dim bogus=2",
        "info '" + m + "' --dim bogus=2"}) {
    CAPTURE(cmd);
    auto r = run_cli(dir, cmd);
    CHECK(r.exit_code == 1);
    CHECK(r.err.rfind("plaidml: error: " + m + ": ", 0) == 0);
    CHECK(has_text(r.err, "dimension option 'bogus'"));
    CHECK(has_text(r.err, "batch"));  // the importer lists the model's symbolic dims
  }
}

TEST_CASE("print shows the imported program as Tile text, weights as constants") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  auto r = run_cli(dir, "print '" + m + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("function (", 0) == 0);
  CHECK(has_text(r.out, "constant(f32[2, 3]"));
  CHECK(has_text(r.out, "relu("));
  auto fixed = run_cli(dir, "print '" + m + "' --dim batch=2");
  REQUIRE(fixed.exit_code == 0);
  CHECK(has_text(fixed.out, "`input.1`: f32[2, 3]"));  // ONNX names are quoted
}

TEST_CASE("info reports inputs, outputs, op counts and constants") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  auto r = run_cli(dir, "info '" + m + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has_text(r.out, "opsets: ai.onnx=17\n"));
  CHECK(has_text(r.out, "inputs:\n  input.1: f32[batch, 3]\noutputs:\n  Y: f32[2, 3]\n"));
  CHECK(has_text(r.out, "  Add 1\n  Relu 1\n"));
  CHECK(has_text(r.out, "constants: 1 initializers, 24 bytes\n"));
  CHECK_FALSE(has_text(r.out, "unsupported"));
  CHECK(r.err.empty());
  auto fixed = run_cli(dir, "info '" + m + "' --dim batch=2");
  REQUIRE(fixed.exit_code == 0);
  CHECK(has_text(fixed.out,
                 "imported with --dim batch=2:\ninputs:\n  input.1: f32[2, 3]\n"
                 "outputs:\n  Y\nconstants: 1 (24 bytes)\n"));
}

// topk_by_input.onnx: Values, Indices = TopK(X, K) with K an input: shapes depend on its contents.
TEST_CASE("an input the output shape depends on is bound from its --input at import") {
  ScratchDir dir;
  write_array(dir.path("x.npy"), f32_array({6}, {3, -1, 7, 0.5f, 7.5f, 2}));
  std::string m = onnx_model("topk_by_input.onnx");
  for (int k : {2, 4}) {
    CAPTURE(k);
    write_array(dir.path("k.npy"), i64_array({1}, {k}));
    auto r = run_cli(dir, "run '" + m + "' -i X=x.npy -i K=k.npy -o o");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<double> largest{7.5, 7, 3, 2}, where{4, 2, 0, 5};
    CHECK(values_of(read_array(dir.path("o/Values.npy"))) ==
          std::vector<double>(largest.begin(), largest.begin() + k));
    CHECK(values_of(read_array(dir.path("o/Indices.npy"))) ==
          std::vector<double>(where.begin(), where.begin() + k));
  }
  check_onnx_fails(run_cli(dir, "run '" + m + "' -i X=x.npy"), 2,
                   m + ": the import needs the contents of input 'K' (shapes depend on it): add "
                       "--input K=FILE.npy");
}

TEST_CASE("info exits 0 on a model with unsupported nodes, run refuses it") {
  ScratchDir dir;
  std::string m = onnx_model("unsupported.onnx");
  auto info = run_cli(dir, "info '" + m + "'");
  INFO(info.err);
  CHECK(info.exit_code == 0);
  CHECK(has_text(info.out, "unsupported nodes:\n"));
  CHECK(has_text(info.out, "Frobnicate"));
  auto run = run_cli(dir, "run '" + m + "' -i X=ones:f32:2");
  CHECK(run.exit_code == 1);
  CHECK(run.err.rfind("plaidml: error: " + m + ": ", 0) == 0);
  CHECK(has_text(run.err, "com.example"));
}

TEST_CASE("a file that is not a model, or no file, exits 1 for run, print and info") {
  ScratchDir dir;
  std::ofstream(dir.path("text.onnx")) << "not a model\n";
  for (const std::string cmd : {"run", "print", "info"}) {
    CAPTURE(cmd);
    auto r = run_cli(dir, cmd + " text.onnx");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("plaidml: error: text.onnx: the data is not an ONNX model", 0) == 0);
    auto missing = run_cli(dir, cmd + " nope.onnx");
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.rfind("plaidml: error: nope.onnx: ", 0) == 0);
    CHECK(has_text(missing.err, "nope.onnx'"));
  }
}

TEST_CASE("input names are the model's: a wrong one lists them") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  check_onnx_fails(run_cli(dir, "run '" + m + "' -i X=ones:f32:2x3"), 2,
                   "--input X=ones:f32:2x3: " + m + " has no input 'X' (its inputs are input.1)");
}

// odd_names.onnx: input "0" f32[2]; outputs "y/relu:0" = relu(x) and "y\sq" = x * x.
TEST_CASE("output names that are not file names are written with '_' for '/', ':', '\\\\'") {
  ScratchDir dir;
  write_array(dir.path("x.npy"), f32_array({2}, {-1.5f, 2}));
  auto r = run_cli(dir, "run '" + onnx_model("odd_names.onnx") + "' -i 0=x.npy -o o");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(values_of(read_array(dir.path("o/y_relu_0.npy"))) == std::vector<double>{0, 2});
  CHECK(values_of(read_array(dir.path("o/y_sq.npy"))) == std::vector<double>{2.25, 4});
  CHECK(has_text(r.out,
                 "output y/relu:0: shape=2 dtype=f32 min=0 max=2 mean=1 "
                 "file=o/y_relu_0.npy\n"));
  CHECK(has_text(r.out,
                 "output y\\sq: shape=2 dtype=f32 min=2.25 max=4 mean=3.125 "
                 "file=o/y_sq.npy\n"));
}

// colliding_names.onnx: outputs "a/b" and "a:b" both become a_b.npy.
TEST_CASE("two outputs mapping to one file are an error before anything is written") {
  ScratchDir dir;
  std::string m = onnx_model("colliding_names.onnx");
  auto r = run_cli(dir, "run '" + m + "' -i X=ones:f32:2 -o out");
  check_onnx_fails(
      r, 1,
      "outputs 'a/b' and 'a:b' would both be written to a_b.npy (characters a file name "
      "cannot hold become '_')");
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir.path("out")));
  // Without --output-dir nothing is written, so the names do not matter.
  auto summary = run_cli(dir, "run '" + m + "' -i X=ones:f32:2");
  CHECK(summary.exit_code == 0);
  CHECK(has_text(summary.out, "output a:b: shape=2 dtype=f32 min=1 max=1 mean=1\n"));
}

#else  // the tool was built without libplaidml_onnx (PLAIDML_BUILD_ONNX=OFF)

TEST_CASE("without ONNX support a .onnx path says so") {
  ScratchDir dir;
  std::string m = onnx_model("add_relu.onnx");
  std::string message =
      m + ": this plaidml was built without ONNX support (PLAIDML_BUILD_ONNX=OFF)";
  check_onnx_fails(run_cli(dir, "run '" + m + "' -i input.1=ones:f32:2x3"), 1, message);
  check_onnx_fails(run_cli(dir, "print '" + m + "'"), 1, message);
  check_onnx_fails(run_cli(dir, "info '" + m + "'"), 1, message);
}

#endif

}  // namespace
}  // namespace plaidml_cli::testing
