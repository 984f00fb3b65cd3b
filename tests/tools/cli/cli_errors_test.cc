// Every error path of the `plaidml` executable: the exit status (2 usage, 1 runtime), that the
// message goes to stderr, and what it says.
#include <doctest/doctest.h>

#include <fstream>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

void check_fails(const CliResult& r, int code, const std::string& message) {
  CHECK(r.exit_code == code);
  CHECK(r.err == "plaidml: error: " + message + "\n");
}

TEST_CASE("help and version go to stdout and exit 0") {
  ScratchDir dir;
  auto help = run_cli(dir, "--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.rfind("usage: plaidml <command> [options]", 0) == 0);
  CHECK(help.err.empty());
  auto run_help = run_cli(dir, "run --help");
  CHECK(run_help.exit_code == 0);
  CHECK(run_help.out.rfind("usage: plaidml run PROGRAM.tile|MODEL.onnx [options]", 0) == 0);
  auto info_help = run_cli(dir, "help info");
  CHECK(info_help.exit_code == 0);
  CHECK(info_help.out.rfind("usage: plaidml info PROGRAM.tile|MODEL.onnx", 0) == 0);
  auto version = run_cli(dir, "--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == "plaidml 0.1.0 (library 0.1.0)\n");
}

TEST_CASE("devices lists the CPU as available") {
  ScratchDir dir;
  auto r = run_cli(dir, "devices");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("ID", 0) == 0);
  CHECK(r.out.find("STATUS\n") != std::string::npos);
  CHECK(r.out.find("\ncpu:0 ") != std::string::npos);
  CHECK(r.out.find("available (default)\n") != std::string::npos);
}

TEST_CASE("usage errors exit 2") {
  ScratchDir dir;
  check_fails(run_cli(dir, ""), 2, "no command given (see 'plaidml --help')");
  check_fails(run_cli(dir, "launch"), 2,
              "unknown command 'launch': commands are run, print, info, devices (see 'plaidml "
              "--help')");
  check_fails(run_cli(dir, "run"), 2,
              "'plaidml run' needs a program file (PROGRAM.tile or MODEL.onnx) (see 'plaidml "
              "--help')");
  check_fails(run_cli(dir, "run m.tile --input A"), 2,
              "--input 'A' is not NAME=FILE.npy or NAME=random:DTYPE:DIMS (e.g. A=a.npy, "
              "B=random:f32:2x3)");
  check_fails(run_cli(dir, "run m.tile --input A=random:f33:2"), 2,
              "--input 'A=random:f33:2': unknown dtype 'f33' (one of: bool, i8, i16, i32, i64, "
              "u8, u16, u32, u64, f16, bf16, f32, f64)");
  check_fails(run_cli(dir, "run m.tile --repeat x"), 2, "--repeat expects an integer, got 'x'");
}

TEST_CASE("a missing program file exits 1") {
  ScratchDir dir;
  check_fails(run_cli(dir, "run nope.tile -i A=a.npy"), 1,
              "nope.tile: cannot open (No such file or directory)");
  check_fails(run_cli(dir, "print nope.tile"), 1,
              "nope.tile: cannot open (No such file or directory)");
}

TEST_CASE("unknown and missing input names exit 2 and list the program's inputs") {
  ScratchDir dir;
  std::string m = data_file("matmul.tile");
  check_fails(run_cli(dir, "run '" + m + "' -i A=ones:f32:2x2 -i X=ones:f32:2x2"), 2,
              "--input X=ones:f32:2x2: " + m + " has no input 'X' (its inputs are A, B)");
  check_fails(run_cli(dir, "run '" + m + "' -i A=ones:f32:2x2"), 2,
              m + " needs input B: add --input NAME=FILE.npy (or NAME=random:f32:2x3)");
  check_fails(run_cli(dir, "run '" + m + "'"), 2,
              m + " needs inputs A, B: add --input NAME=FILE.npy (or NAME=random:f32:2x3)");
}

TEST_CASE("missing, corrupt and unsupported .npy inputs exit 1") {
  ScratchDir dir;
  std::string m = data_file("matmul.tile");
  check_fails(run_cli(dir, "run '" + m + "' -i A=missing.npy -i B=ones:f32:2x2"), 1,
              "missing.npy: cannot open for reading (No such file or directory)");
  std::ofstream(dir.path("text.npy")) << "not numpy";
  check_fails(run_cli(dir, "run '" + m + "' -i A=text.npy -i B=ones:f32:2x2"), 1,
              "text.npy: not a NumPy .npy file (it does not start with the \\x93NUMPY magic "
              "bytes)");
}

TEST_CASE("malformed Tile reports FILE:LINE:COLUMN and exits 1") {
  ScratchDir dir;
  std::string bad = data_file("malformed.tile");
  for (const std::string& cmd : {"print '" + bad + "'", "run '" + bad + "' -i A=a.npy"}) {
    auto r = run_cli(dir, cmd);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("plaidml: error: " + bad + ":3:", 0) == 0);
  }
}

TEST_CASE("shape mismatches are runtime errors naming the dimension") {
  ScratchDir dir;
  auto r =
      run_cli(dir, "run '" + data_file("matmul.tile") + "' -i A=ones:f32:2x3 -i B=ones:f32:4x2");
  CHECK(r.exit_code == 1);
  // Located like a compiler message: PATH:LINE:COLUMN: (the line of the program declaration).
  CHECK(r.err.rfind("plaidml: error: " + data_file("matmul.tile") + ":2:", 0) == 0);
  CHECK(r.err.find("'K'") != std::string::npos);
  CHECK(r.err.find("3") != std::string::npos);
  CHECK(r.err.find("4") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("an unknown device exits 1 and names it") {
  ScratchDir dir;
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' -i A=ones:f32:2x2 -i B=ones:f32:2x2 --device warp:7");
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("plaidml: error: ", 0) == 0);
  CHECK(r.err.find("warp:7") != std::string::npos);
}

TEST_CASE("an output directory that cannot be created exits 1") {
  ScratchDir dir;
  std::ofstream(dir.path("file")) << "x";
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' -i A=ones:f32:2x2 -i B=ones:f32:2x2 -o file/sub");
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("plaidml: error: file/sub: cannot create directory (", 0) == 0);
}

TEST_CASE("--dim is for ONNX models: on a Tile program it exits 2 and says so") {
  ScratchDir dir;
  std::string m = data_file("matmul.tile");
  std::string message = "--dim N=2: --dim applies to ONNX models (MODEL.onnx); " + m +
                        " is a Tile program, whose dims take their sizes from its inputs";
  check_fails(run_cli(dir, "run '" + m + "' --dim N=2 -i A=ones:f32:2x2 -i B=ones:f32:2x2"), 2,
              message);
  check_fails(run_cli(dir, "print '" + m + "' --dim N=2"), 2, message);
  check_fails(run_cli(dir, "info '" + m + "' --dim N=2"), 2, message);
}

TEST_CASE("info on a Tile program lists its inputs and outputs") {
  ScratchDir dir;
  auto r = run_cli(dir, "info '" + data_file("matmul.tile") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "inputs:\n  A: any[M, K]\n  B: any[K, N]\noutputs:\n  C\nconstants: 0 (0 bytes)\n");
  check_fails(run_cli(dir, "info nope.tile"), 1,
              "nope.tile: cannot open (No such file or directory)");
}

TEST_CASE("print gives Tile text that parses back to the same program") {
  ScratchDir dir;
  for (const std::string& file :
       {data_file("matmul.tile"), data_file("conv.tile"), example_file("convnet.tile")}) {
    CAPTURE(file);
    auto first = run_cli(dir, "print '" + file + "'");
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    std::ofstream(dir.path("printed.tile")) << first.out;
    auto second = run_cli(dir, "print printed.tile");
    REQUIRE(second.exit_code == 0);
    CHECK(second.out == first.out);
  }
}

}  // namespace
}  // namespace plaidml_cli::testing
