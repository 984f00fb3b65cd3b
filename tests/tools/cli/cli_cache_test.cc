// `plaidml run` and the disk kernel cache: the "kernel cache:" line of a first and a second
// process on one PLAIDML_CACHE_DIR, and the cache turned off by an empty value.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <fstream>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

const std::string kArgs = " -i A=random:f32:24x40 -i B=random:f32:40x8";

TEST_CASE("run twice on one cache folder: the second process generates no code") {
  ScratchDir dir;
  std::string cache = dir.path("cache");
  ::setenv("PLAIDML_CACHE_DIR", cache.c_str(), 1);
  auto first = run_cli(dir, "run '" + data_file("matmul.tile") + "'" + kArgs);
  auto second = run_cli(dir, "run '" + data_file("matmul.tile") + "'" + kArgs);
  INFO(first.out << first.err << second.out << second.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(second.err.empty());
  CHECK(field(first.out, "kernel cache:", "compiled") != "0");
  CHECK(field(first.out, "kernel cache:", "disk_writes") == "1");
  CHECK(field(first.out, "kernel cache:", "dir") == cache);
  CHECK(field(second.out, "kernel cache:", "compiled") == "0");
  CHECK(field(second.out, "kernel cache:", "disk_hits") == "1");
  CHECK(field(second.out, "cache:", "compiles") == "1");
  // The same numbers from the cached code.
  size_t at = first.out.find("output C:");
  REQUIRE(at != std::string::npos);
  CHECK(second.out.find(first.out.substr(at)) != std::string::npos);
}

TEST_CASE("run with PLAIDML_CACHE_DIR empty: no disk cache") {
  ScratchDir dir;
  ::setenv("PLAIDML_CACHE_DIR", "", 1);
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") + "'" + kArgs);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(field(r.out, "kernel cache:", "dir") == "off");
  CHECK(field(r.out, "kernel cache:", "disk_writes") == "0");
  CHECK(field(r.out, "kernel cache:", "disk_misses") == "0");
}

TEST_CASE("run with an unwritable cache folder warns and still runs") {
  ScratchDir dir;
  {
    std::ofstream(dir.path("file")) << "x";
  }
  std::string cache = dir.path("file/cache");
  ::setenv("PLAIDML_CACHE_DIR", cache.c_str(), 1);
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") + "'" + kArgs);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("[plaidml warning] kernel cache " + cache +
                   "/kernels: cannot create the folder (Not a directory); running without saving "
                   "compiled kernels there") != std::string::npos);
  CHECK(field(r.out, "kernel cache:", "compiled") != "0");
}

}  // namespace
}  // namespace plaidml_cli::testing
