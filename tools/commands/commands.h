// The subcommands of `plaidml`, one file each. Each writes its normal output to `out` and its
// warnings to `err`; a failure comes back as an Error that main() prints and turns into the exit
// status.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "args.h"
#include "result.h"

namespace plaidml_cli {

Result<Done> command_devices(std::ostream& out, std::ostream& err);
Result<Done> command_info(const std::string& program_path, const std::vector<DimSpec>& dims,
                          std::ostream& out);
Result<Done> command_print(const std::string& program_path, const std::vector<DimSpec>& dims,
                           std::ostream& out);
Result<Done> command_run(const RunOptions& options, std::ostream& out, std::ostream& err);
Result<Done> command_version(std::ostream& out);

}  // namespace plaidml_cli
