// PLAIDML_LOG_LEVEL as the `plaidml` tool's user sets it: any case is accepted, and an unknown
// value keeps the default level with one warning that names the accepted values.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <string>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

const std::string kRun = " -i A=random:f32:4x3 -i B=random:f32:3x2";

CliResult run_with_level(const ScratchDir& dir, const char* level) {
  ::setenv("PLAIDML_LOG_LEVEL", level, 1);
  ::setenv("PLAIDML_CACHE_DIR", "", 1);  // no disk cache: every run compiles
  CliResult r = run_cli(dir, "run '" + data_file("matmul.tile") + "'" + kRun);
  ::unsetenv("PLAIDML_LOG_LEVEL");
  return r;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("PLAIDML_LOG_LEVEL: upper and mixed case name the level") {
  ScratchDir dir;
  for (const char* level : {"DEBUG", "Debug", "debug"}) {
    CliResult r = run_with_level(dir, level);
    INFO(level << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("[plaidml debug]") != std::string::npos);
    CHECK(r.err.find("is not a log level") == std::string::npos);
  }
  CliResult warn = run_with_level(dir, "WARN");
  INFO(warn.err);
  REQUIRE(warn.exit_code == 0);
  CHECK(warn.err.empty());
}

TEST_CASE("PLAIDML_LOG_LEVEL: an unknown value keeps warn and says so once") {
  ScratchDir dir;
  CliResult r = run_with_level(dir, "verbose");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count(r.err, "PLAIDML_LOG_LEVEL='verbose' is not a log level; keeping 'warn'") == 1);
  CHECK(r.err.find("trace, debug, info, warn, error, critical, off") != std::string::npos);
  CHECK(r.err.find("[plaidml debug]") == std::string::npos);  // still the default level
}

}  // namespace
}  // namespace plaidml_cli::testing
