// Command-line parsing of `plaidml`: every accepted form and every usage error (exit code 2)
// with its exact message. Also the seeded input generators and the summary statistics.
#include "args.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "generate.h"
#include "summary.h"

namespace plaidml_cli {
namespace {

Result<Command> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "plaidml");
  return parse_args(args);
}

void check_usage_error(std::vector<std::string> args, const std::string& message) {
  auto cmd = parse(std::move(args));
  REQUIRE_FALSE(cmd.ok());
  CHECK(cmd.error().code == ExitCode::kUsage);
  CHECK(cmd.error().message == message);
}

TEST_CASE("run: program, inputs and options in both --opt VALUE and --opt=VALUE forms") {
  auto cmd = parse({"run", "m.tile", "--input", "A=a.npy", "-i", "B=random:f16:2x3",
                    "--input=C=zeros:i32:scalar", "--output-dir=out", "--device", "cpu:0",
                    "--repeat", "5", "--threads=2", "--seed", "42", "--print-values"});
  REQUIRE(cmd.ok());
  CHECK(cmd->kind == Command::Kind::kRun);
  const RunOptions& run = cmd->run;
  CHECK(run.program_path == "m.tile");
  REQUIRE(run.inputs.size() == 3);
  CHECK(run.inputs[0].name == "A");
  CHECK(run.inputs[0].kind == InputSpec::Kind::kFile);
  CHECK(run.inputs[0].path == "a.npy");
  CHECK(run.inputs[1].kind == InputSpec::Kind::kRandom);
  CHECK(run.inputs[1].dtype == Dtype::F16);
  CHECK(run.inputs[1].dims == std::vector<int64_t>{2, 3});
  CHECK(run.inputs[2].kind == InputSpec::Kind::kZeros);
  CHECK(run.inputs[2].dtype == Dtype::I32);
  CHECK(run.inputs[2].dims.empty());
  CHECK(run.output_dir == "out");
  CHECK(run.device == "cpu:0");
  CHECK(run.repeat == 5);
  CHECK(run.threads == 2);
  CHECK(run.seed == 42);
  CHECK(run.print_values);
}

TEST_CASE("help, version, devices and print") {
  CHECK(parse({"--help"})->kind == Command::Kind::kHelp);
  CHECK(parse({"-h"})->help_topic.empty());
  CHECK(parse({"help", "run"})->help_topic == "run");
  CHECK(parse({"run", "--help"})->help_topic == "run");
  CHECK(parse({"print", "-h"})->help_topic == "print");
  CHECK(parse({"devices", "--help"})->help_topic == "devices");
  CHECK(parse({"--version"})->kind == Command::Kind::kVersion);
  CHECK(parse({"-V"})->kind == Command::Kind::kVersion);
  CHECK(parse({"devices"})->kind == Command::Kind::kDevices);
  auto p = parse({"print", "x.tile"});
  REQUIRE(p.ok());
  CHECK(p->kind == Command::Kind::kPrint);
  CHECK(p->program_path == "x.tile");
  CHECK(help_text("run").find("--input NAME=random:DTYPE:DIMS") != std::string::npos);
  CHECK(help_text("").find("usage: plaidml <command>") == 0);
}

TEST_CASE("usage errors name the offending argument") {
  check_usage_error({}, "no command given (see 'plaidml --help')");
  check_usage_error({"frobnicate"},
                    "unknown command 'frobnicate': commands are run, print, info, devices (see "
                    "'plaidml --help')");
  check_usage_error({"--frob"}, "unknown option '--frob' (see 'plaidml --help')");
  check_usage_error({"help", "frob"}, "no help for 'frob': commands are run, print, info, devices");
  check_usage_error({"run"},
                    "'plaidml run' needs a program file (PROGRAM.tile or MODEL.onnx) (see "
                    "'plaidml --help')");
  check_usage_error({"run", "a.tile", "b.tile"},
                    "'plaidml run' takes one program, got a second: 'b.tile'");
  check_usage_error({"run", "a.tile", "--bogus"},
                    "unknown option '--bogus' for 'plaidml run' (see 'plaidml --help')");
  check_usage_error({"run", "a.tile", "--input"}, "--input needs a value (see 'plaidml --help')");
  check_usage_error({"run", "a.tile", "--repeat", "many"},
                    "--repeat expects an integer, got 'many'");
  check_usage_error({"run", "a.tile", "--repeat", "-1"}, "--repeat must be at least 0, got -1");
  check_usage_error({"run", "a.tile", "--threads", "2x"}, "--threads expects an integer, got '2x'");
  check_usage_error({"run", "a.tile", "--seed", "-3"}, "--seed expects an integer, got '-3'");
  check_usage_error({"run", "a.tile", "-i", "A=a.npy", "-i", "A=b.npy"},
                    "input 'A' is given twice");
  check_usage_error({"print"},
                    "'plaidml print' needs a program file (PROGRAM.tile or MODEL.onnx) (see "
                    "'plaidml --help')");
  check_usage_error({"info"},
                    "'plaidml info' needs a program file (PROGRAM.tile or MODEL.onnx) (see "
                    "'plaidml --help')");
  check_usage_error({"info", "a.onnx", "b.onnx"},
                    "'plaidml info' takes one program, got a second: 'b.onnx'");
  check_usage_error({"info", "a.onnx", "--input", "A=a.npy"},
                    "unknown option '--input' for 'plaidml info' (see 'plaidml --help')");
  check_usage_error({"print", "a.tile", "b.tile"},
                    "'plaidml print' takes one program, got a second: 'b.tile'");
  check_usage_error({"print", "--x"},
                    "unknown option '--x' for 'plaidml print' (see 'plaidml --help')");
  check_usage_error({"devices", "extra"}, "'plaidml devices' takes no arguments, got 'extra'");
  check_usage_error({"run", "a.tile", "--output-dir="}, "--output-dir needs a directory");
  check_usage_error({"run", "a.tile", "--profile="}, "--profile needs a file name");
}

TEST_CASE("bad --input specs are usage errors") {
  auto err = [](const std::string& spec) {
    auto r = parse_input_spec(spec);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ExitCode::kUsage);
    return r.error().message;
  };
  CHECK(err("a.npy") ==
        "--input 'a.npy' is not NAME=FILE.npy or NAME=random:DTYPE:DIMS (e.g. A=a.npy, "
        "B=random:f32:2x3)");
  CHECK(err("=a.npy") == "--input '=a.npy': the input name before '=' is empty");
  CHECK(err("=") == "--input '=': the input name before '=' is empty");
  CHECK(err("A=") == "--input 'A=': nothing after '='");
  CHECK(err("A=random:f31:2x3") ==
        "--input 'A=random:f31:2x3': unknown dtype 'f31' (one of: bool, i8, i16, i32, i64, u8, "
        "u16, u32, u64, f16, bf16, f32, f64)");
  CHECK(err("A=random:f32") ==
        "--input 'A=random:f32': missing shape after the dtype (write e.g. 2x3, or 'scalar')");
  CHECK(err("A=ones:f32:2xx3") ==
        "--input 'A=ones:f32:2xx3': bad dimension '' in shape '2xx3' (write dimensions as "
        "non-negative integers joined by 'x', e.g. 2x3)");
  CHECK(err("A=random:f32:2x-3") ==
        "--input 'A=random:f32:2x-3': bad dimension '-3' in shape '2x-3' (write dimensions as "
        "non-negative integers joined by 'x', e.g. 2x3)");
}

TEST_CASE("--input names are the program's names: ONNX names with '.', ':', '/', '-', digits") {
  for (const std::string name : {"input.1", "0", "x:0", "encoder/layer-1/in", "1A", "_"}) {
    CAPTURE(name);
    auto spec = parse_input_spec(name + "=a.npy");
    REQUIRE(spec.ok());
    CHECK(spec->name == name);
    CHECK(spec->path == "a.npy");
  }
  // The name ends at the first '=': the rest is the source, '=' and all.
  auto spec = parse_input_spec("x=dir=1/a.npy");
  REQUIRE(spec.ok());
  CHECK(spec->name == "x");
  CHECK(spec->path == "dir=1/a.npy");
}

TEST_CASE("--dim NAME=SIZE for run, print and info") {
  auto run = parse({"run", "m.onnx", "--dim", "batch=8", "--dim=seq.len=0", "-i", "0=ones:f32:2"});
  REQUIRE(run.ok());
  REQUIRE(run->run.dims.size() == 2);
  CHECK(run->run.dims[0].name == "batch");
  CHECK(run->run.dims[0].size == 8);
  CHECK(run->run.dims[1].name == "seq.len");
  CHECK(run->run.dims[1].size == 0);
  CHECK(run->run.inputs[0].name == "0");
  for (const std::string cmd : {"print", "info"}) {
    CAPTURE(cmd);
    auto c = parse({cmd, "--dim", "N=3", "m.onnx", "--dim=M=4"});
    REQUIRE(c.ok());
    CHECK(c->kind == (cmd == "print" ? Command::Kind::kPrint : Command::Kind::kInfo));
    CHECK(c->program_path == "m.onnx");
    REQUIRE(c->dims.size() == 2);
    CHECK(c->dims[1].name == "M");
    CHECK(c->dims[1].size == 4);
  }
  CHECK(parse({"info", "m.tile"})->dims.empty());
  CHECK(parse({"help", "info"})->help_topic == "info");
  CHECK(parse({"info", "--help"})->help_topic == "info");
  CHECK(help_text("info").find("usage: plaidml info") == 0);
  CHECK(help_text("run").find("--dim NAME=SIZE") != std::string::npos);
}

TEST_CASE("bad --dim values are usage errors") {
  check_usage_error({"run", "m.onnx", "--dim", "batch"},
                    "--dim 'batch' is not NAME=SIZE (e.g. --dim batch=8)");
  check_usage_error({"print", "m.onnx", "--dim", "=3"},
                    "--dim '=3': the dimension name before '=' is empty");
  check_usage_error({"info", "m.onnx", "--dim", "N=-1"},
                    "--dim 'N=-1': the size '-1' is not a non-negative integer");
  check_usage_error({"run", "m.onnx", "--dim", "N=2x"},
                    "--dim 'N=2x': the size '2x' is not a non-negative integer");
  check_usage_error({"run", "m.onnx", "--dim", "N="},
                    "--dim 'N=': the size '' is not a non-negative integer");
  check_usage_error({"run", "m.onnx", "--dim", "N=1", "--dim", "N=2"},
                    "dimension 'N' is given twice");
  check_usage_error({"info", "m.onnx", "--dim"}, "--dim needs a value (see 'plaidml --help')");
}

TEST_CASE("generators: seeded, per-name streams, documented ranges") {
  InputSpec spec;
  spec.name = "A";
  spec.kind = InputSpec::Kind::kRandom;
  spec.dims = {1000};
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::F64}) {
    spec.dtype = t;
    NpyArray a = generate_input(spec, 7);
    ArrayStats s = array_stats(a);
    CHECK(s.min >= -1.0);
    CHECK(s.max < 1.0);
    CHECK(s.max - s.min > 1.5);  // spread over the range, not constant
  }
  spec.dtype = Dtype::I8;
  ArrayStats si = array_stats(generate_input(spec, 7));
  CHECK(si.min == -4);
  CHECK(si.max == 4);
  spec.dtype = Dtype::U32;
  ArrayStats su = array_stats(generate_input(spec, 7));
  CHECK(su.min == 0);
  CHECK(su.max == 8);
  spec.dtype = Dtype::Bool;
  ArrayStats sb = array_stats(generate_input(spec, 7));
  CHECK(sb.min == 0);
  CHECK(sb.max == 1);

  spec.dtype = Dtype::F32;
  CHECK(generate_input(spec, 7).data == generate_input(spec, 7).data);
  CHECK(generate_input(spec, 7).data != generate_input(spec, 8).data);
  InputSpec other = spec;
  other.name = "B";
  CHECK(generate_input(spec, 7).data != generate_input(other, 7).data);

  spec.kind = InputSpec::Kind::kOnes;
  spec.dims = {2, 2};
  spec.dtype = Dtype::F16;
  CHECK(summary_line("O", generate_input(spec, 0)) ==
        "output O: shape=2x2 dtype=f16 min=1 max=1 mean=1");
}

TEST_CASE("summary statistics and value printing") {
  NpyArray a;
  a.dtype = Dtype::I32;
  a.shape = {2, 3};
  a.data.resize(24);
  int32_t values[] = {1, -2, 3, 4, 5, 10};
  std::memcpy(a.data.data(), values, 24);
  CHECK(summary_line("C", a) == "output C: shape=2x3 dtype=i32 min=-2 max=10 mean=3.5");
  CHECK(format_values(a) == "1 -2 3\n4 5 10\n");
  NpyArray f;
  f.dtype = Dtype::F32;
  f.shape = {3};
  float fv[] = {1.5f, NAN, -0.25f};
  f.data.resize(12);
  std::memcpy(f.data.data(), fv, 12);
  CHECK(summary_line("X", f) == "output X: shape=3 dtype=f32 min=-0.25 max=1.5 mean=0.625 nans=1");
  NpyArray empty;
  empty.dtype = Dtype::F32;
  empty.shape = {0, 2};
  CHECK(summary_line("E", empty) == "output E: shape=0x2 dtype=f32 (empty)");
  CHECK(format_values(empty) == "(empty)\n");
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == 2.5);
  CHECK(format_ms(0.0123456) == "12.346");
}

}  // namespace
}  // namespace plaidml_cli
