// `plaidml`: the command-line tool. It parses the command line, runs one subcommand, prints any
// error to stderr and exits 0 (success), 1 (the command failed) or 2 (bad command line).
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands/commands.h"

namespace {

using plaidml_cli::Command;
using plaidml_cli::Done;
using plaidml_cli::Result;

Result<Done> dispatch(const Command& cmd) {
  switch (cmd.kind) {
    case Command::Kind::kHelp:
      std::cout << plaidml_cli::help_text(cmd.help_topic);
      return Done{};
    case Command::Kind::kVersion:
      return plaidml_cli::command_version(std::cout);
    case Command::Kind::kDevices:
      return plaidml_cli::command_devices(std::cout, std::cerr);
    case Command::Kind::kRun:
      return plaidml_cli::command_run(cmd.run, std::cout, std::cerr);
    case Command::Kind::kPrint:
      return plaidml_cli::command_print(cmd.program_path, cmd.dims, std::cout);
    case Command::Kind::kInfo:
      return plaidml_cli::command_info(cmd.program_path, cmd.dims, std::cout);
  }
  return Done{};
}

int fail(const plaidml_cli::Error& error) {
  std::cout.flush();
  std::cerr << "plaidml: error: " << error.message << "\n";
  return static_cast<int>(error.code);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  auto cmd = plaidml_cli::parse_args(args);
  if (!cmd) return fail(cmd.error());
  auto result = dispatch(*cmd);
  if (!result) return fail(result.error());
  std::cout.flush();
  return std::cout ? 0 : static_cast<int>(plaidml_cli::ExitCode::kRuntime);
}
