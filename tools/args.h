// The command line of `plaidml`: subcommands, options and --input specs, parsed into plain
// structs. Every mistake is a usage error (exit code 2) that names the offending argument.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dtypes.h"
#include "result.h"

namespace plaidml_cli {

// One --input NAME=SOURCE. SOURCE is a .npy path or a generator "KIND:DTYPE:DIMS" with KIND one
// of random, zeros, ones, and DIMS like 2x3 (or "scalar").
struct InputSpec {
  enum class Kind { kFile, kRandom, kZeros, kOnes };
  std::string name;
  Kind kind = Kind::kFile;
  std::string path;           // kFile
  Dtype dtype = Dtype::F32;   // generators
  std::vector<int64_t> dims;  // generators; empty = scalar
  std::string text;           // the spec as written, for messages
};

// One --dim NAME=SIZE: fixes the symbolic dimension NAME of an ONNX model's inputs to SIZE.
struct DimSpec {
  std::string name;
  int64_t size = 0;
};

struct RunOptions {
  std::string program_path;
  std::vector<InputSpec> inputs;
  std::vector<DimSpec> dims;  // ONNX models only
  std::string output_dir;     // empty: outputs are summarised, not written
  std::string device;         // empty: PLAIDML_DEVICE, else the CPU
  int repeat = 0;             // cached runs after the first
  int threads = 0;            // 0: the library's default
  uint64_t seed = 0;
  bool print_values = false;  // print every output element (small tensors)
  std::string profile_path;   // non-empty: profile every run, write a Chrome trace here
  bool memory = false;        // print what an execute needs on the device before running
};

struct Command {
  enum class Kind { kHelp, kVersion, kDevices, kRun, kPrint, kInfo };
  Kind kind = Kind::kHelp;
  std::string help_topic;     // kHelp: "" for the overview, or a subcommand name
  std::string program_path;   // kPrint, kInfo
  RunOptions run;             // kRun
  std::vector<DimSpec> dims;  // kPrint, kInfo
};

// argv[0] is skipped.
Result<Command> parse_args(const std::vector<std::string>& argv);

// Parses the SOURCE part of an --input spec (exposed for tests).
Result<InputSpec> parse_input_spec(const std::string& text);

// Parses the value of a --dim option, NAME=SIZE (exposed for tests).
Result<DimSpec> parse_dim_spec(const std::string& text);

// Help texts (--help, `plaidml help run`, `plaidml run --help`).
std::string help_text(const std::string& topic);

}  // namespace plaidml_cli
