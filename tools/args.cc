#include "args.h"

#include <charconv>
#include <limits>
#include <set>
#include <string_view>

namespace plaidml_cli {

namespace {

constexpr std::string_view kSeeHelp = " (see 'plaidml --help')";
constexpr std::string_view kCommands = "run, print, info, devices";

template <typename T>
Result<T> parse_number(std::string_view text, std::string_view option, T min_value) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return usage_error(std::string(option) + " expects an integer, got '" + std::string(text) +
                       "'");
  }
  if (value < min_value) {
    return usage_error(std::string(option) + " must be at least " + std::to_string(min_value) +
                       ", got " + std::string(text));
  }
  return value;
}

Result<std::vector<int64_t>> parse_dims(std::string_view text, std::string_view spec) {
  std::vector<int64_t> dims;
  if (text == "scalar") return dims;
  if (text.empty()) {
    return usage_error("--input '" + std::string(spec) +
                       "': missing shape after the dtype (write e.g. 2x3, or 'scalar')");
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t x = text.find('x', start);
    std::string_view part = text.substr(start, x == std::string_view::npos ? x : x - start);
    int64_t d = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || d < 0) {
      return usage_error("--input '" + std::string(spec) + "': bad dimension '" +
                         std::string(part) + "' in shape '" + std::string(text) +
                         "' (write dimensions as non-negative integers joined by 'x', e.g. 2x3)");
    }
    dims.push_back(d);
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  return dims;
}

// Pops the value of an option given as "--opt VALUE" or "--opt=VALUE".
class ArgCursor {
 public:
  explicit ArgCursor(const std::vector<std::string>& argv) : argv_(argv) {}
  bool done() const { return i_ >= argv_.size(); }
  const std::string& next() { return argv_[i_++]; }
  Result<std::string> value(std::string_view option, const std::string& arg) {
    size_t eq = arg.find('=');
    if (eq != std::string::npos) return arg.substr(eq + 1);
    if (done()) return usage_error(std::string(option) + " needs a value" + std::string(kSeeHelp));
    return next();
  }

 private:
  const std::vector<std::string>& argv_;
  size_t i_ = 1;
};

std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

// Adds one --dim value to `dims`; a name given twice is a mistake, not a silent override.
Result<Done> add_dim(const std::string& text, std::vector<DimSpec>& dims) {
  auto dim = parse_dim_spec(text);
  if (!dim) return dim.error();
  for (const auto& d : dims) {
    if (d.name == dim->name) return usage_error("dimension '" + dim->name + "' is given twice");
  }
  dims.push_back(std::move(*dim));
  return Done{};
}

Result<Done> parse_run_option(ArgCursor& args, const std::string& arg, RunOptions& run,
                              std::set<std::string>& names) {
  std::string opt = option_name(arg);
  if (opt == "--print-values") {
    run.print_values = true;
    return Done{};
  }
  if (opt == "--memory") {
    run.memory = true;
    return Done{};
  }
  if (opt == "--summary") return Done{};  // summaries are always printed; kept for scripts
  static const std::set<std::string> kValued = {"--input",   "-i",       "--output-dir",
                                                "-o",        "--device", "--repeat",
                                                "--threads", "--seed",   "--dim",
                                                "--profile"};
  if (!kValued.count(opt)) {
    return usage_error("unknown option '" + opt + "' for 'plaidml run'" + std::string(kSeeHelp));
  }
  auto value = args.value(opt, arg);
  if (!value) return value.error();
  if (opt == "--input" || opt == "-i") {
    auto spec = parse_input_spec(*value);
    if (!spec) return spec.error();
    if (!names.insert(spec->name).second) {
      return usage_error("input '" + spec->name + "' is given twice");
    }
    run.inputs.push_back(std::move(*spec));
  } else if (opt == "--dim") {
    return add_dim(*value, run.dims);
  } else if (opt == "--output-dir" || opt == "-o") {
    if (value->empty()) return usage_error("--output-dir needs a directory");
    run.output_dir = *value;
  } else if (opt == "--device") {
    run.device = *value;
  } else if (opt == "--profile") {
    if (value->empty()) return usage_error("--profile needs a file name");
    run.profile_path = *value;
  } else if (opt == "--repeat") {
    auto n = parse_number<int>(*value, opt, 0);
    if (!n) return n.error();
    run.repeat = *n;
  } else if (opt == "--threads") {
    auto n = parse_number<int>(*value, opt, 0);
    if (!n) return n.error();
    run.threads = *n;
  } else {
    auto n = parse_number<uint64_t>(*value, opt, 0);
    if (!n) return n.error();
    run.seed = *n;
  }
  return Done{};
}

Result<Command> parse_run(ArgCursor& args) {
  Command cmd;
  cmd.kind = Command::Kind::kRun;
  std::set<std::string> names;
  while (!args.done()) {
    const std::string& arg = args.next();
    if (arg == "--help" || arg == "-h") return Command{Command::Kind::kHelp, "run", "", {}};
    if (arg.size() > 1 && arg[0] == '-') {
      auto r = parse_run_option(args, arg, cmd.run, names);
      if (!r) return r.error();
    } else if (cmd.run.program_path.empty()) {
      cmd.run.program_path = arg;
    } else {
      return usage_error("'plaidml run' takes one program, got a second: '" + arg + "'");
    }
  }
  if (cmd.run.program_path.empty()) {
    return usage_error("'plaidml run' needs a program file (PROGRAM.tile or MODEL.onnx)" +
                       std::string(kSeeHelp));
  }
  return cmd;
}

// `plaidml print` and `plaidml info`: one program path and any number of --dim options.
Result<Command> parse_program_command(ArgCursor& args, Command::Kind kind,
                                      const std::string& name) {
  Command cmd;
  cmd.kind = kind;
  while (!args.done()) {
    const std::string& arg = args.next();
    if (arg == "--help" || arg == "-h") return Command{Command::Kind::kHelp, name, "", {}};
    if (arg.size() > 1 && arg[0] == '-') {
      if (option_name(arg) != "--dim") {
        return usage_error("unknown option '" + arg + "' for 'plaidml " + name + "'" +
                           std::string(kSeeHelp));
      }
      auto value = args.value("--dim", arg);
      if (!value) return value.error();
      if (auto added = add_dim(*value, cmd.dims); !added) return added.error();
      continue;
    }
    if (!cmd.program_path.empty()) {
      return usage_error("'plaidml " + name + "' takes one program, got a second: '" + arg + "'");
    }
    cmd.program_path = arg;
  }
  if (cmd.program_path.empty()) {
    return usage_error("'plaidml " + name + "' needs a program file (PROGRAM.tile or MODEL.onnx)" +
                       std::string(kSeeHelp));
  }
  return cmd;
}

Result<Command> parse_devices(ArgCursor& args) {
  if (args.done()) return Command{Command::Kind::kDevices, "", "", {}};
  const std::string& arg = args.next();
  if (arg == "--help" || arg == "-h") return Command{Command::Kind::kHelp, "devices", "", {}};
  return usage_error("'plaidml devices' takes no arguments, got '" + arg + "'");
}

}  // namespace

Result<InputSpec> parse_input_spec(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos) {
    return usage_error("--input '" + text +
                       "' is not NAME=FILE.npy or NAME=random:DTYPE:DIMS (e.g. A=a.npy, "
                       "B=random:f32:2x3)");
  }
  InputSpec spec;
  spec.text = text;
  spec.name = text.substr(0, eq);
  std::string source = text.substr(eq + 1);
  // Any other name is passed through: ONNX names such as "input.1", "0" or "x:0" are real inputs,
  // and a name the program lacks is reported against its list of inputs.
  if (spec.name.empty()) {
    return usage_error("--input '" + text + "': the input name before '=' is empty");
  }
  if (source.empty()) return usage_error("--input '" + text + "': nothing after '='");
  static const std::pair<std::string_view, InputSpec::Kind> kGenerators[] = {
      {"random:", InputSpec::Kind::kRandom},
      {"zeros:", InputSpec::Kind::kZeros},
      {"ones:", InputSpec::Kind::kOnes}};
  for (auto [prefix, kind] : kGenerators) {
    if (std::string_view(source).substr(0, prefix.size()) != prefix) continue;
    spec.kind = kind;
    std::string rest = source.substr(prefix.size());
    size_t colon = rest.find(':');
    std::string dtype_text = rest.substr(0, colon);
    auto dtype = dtype_from_name(dtype_text);
    if (!dtype) {
      return usage_error("--input '" + text + "': unknown dtype '" + dtype_text +
                         "' (one of: " + all_dtype_names() + ")");
    }
    spec.dtype = *dtype;
    auto dims = parse_dims(colon == std::string::npos ? "" : rest.substr(colon + 1), text);
    if (!dims) return dims.error();
    spec.dims = std::move(*dims);
    return spec;
  }
  spec.kind = InputSpec::Kind::kFile;
  spec.path = source;
  return spec;
}

Result<DimSpec> parse_dim_spec(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos) {
    return usage_error("--dim '" + text + "' is not NAME=SIZE (e.g. --dim batch=8)");
  }
  DimSpec dim;
  dim.name = text.substr(0, eq);
  if (dim.name.empty()) {
    return usage_error("--dim '" + text + "': the dimension name before '=' is empty");
  }
  std::string_view size = std::string_view(text).substr(eq + 1);
  auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), dim.size);
  if (size.empty() || ec != std::errc() || end != size.data() + size.size() || dim.size < 0) {
    return usage_error("--dim '" + text + "': the size '" + std::string(size) +
                       "' is not a non-negative integer");
  }
  return dim;
}

Result<Command> parse_args(const std::vector<std::string>& argv) {
  ArgCursor args(argv);
  if (args.done()) return usage_error("no command given" + std::string(kSeeHelp));
  const std::string& cmd = args.next();
  if (cmd == "--help" || cmd == "-h") return Command{Command::Kind::kHelp, "", "", {}};
  if (cmd == "help") {
    std::string topic = args.done() ? "" : args.next();
    if (!topic.empty() && topic != "run" && topic != "print" && topic != "info" &&
        topic != "devices") {
      return usage_error("no help for '" + topic + "': commands are " + std::string(kCommands));
    }
    return Command{Command::Kind::kHelp, topic, "", {}};
  }
  if (cmd == "--version" || cmd == "-V" || cmd == "version") {
    return Command{Command::Kind::kVersion, "", "", {}};
  }
  if (cmd == "devices") return parse_devices(args);
  if (cmd == "run") return parse_run(args);
  if (cmd == "print") return parse_program_command(args, Command::Kind::kPrint, "print");
  if (cmd == "info") return parse_program_command(args, Command::Kind::kInfo, "info");
  if (!cmd.empty() && cmd[0] == '-')
    return usage_error("unknown option '" + cmd + "'" + std::string(kSeeHelp));
  return usage_error("unknown command '" + cmd + "': commands are " + std::string(kCommands) +
                     std::string(kSeeHelp));
}

}  // namespace plaidml_cli
