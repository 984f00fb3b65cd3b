// `plaidml run --device opencl:0`: the same example and hand-computed values as on the CPU,
// through the OpenCL plugin (PoCL in CI). Skipped, with a message, where no OpenCL device exists.
#include <doctest/doctest.h>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

bool opencl_available(const ScratchDir& dir) {
  CliResult r = run_cli(dir, "devices");
  size_t at = r.out.find("\nopencl:0 ");
  if (r.exit_code != 0 || at == std::string::npos) return false;
  std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  return line.find("unavailable") == std::string::npos;
}

TEST_CASE("run the conv example on opencl:0 (same padding, bias, relu)") {
  ScratchDir dir;
  if (!opencl_available(dir)) {
    MESSAGE("no OpenCL device: skipped");
    return;
  }
  write_array(dir.path("i.npy"), f32_array({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  write_array(dir.path("k.npy"), f32_array({3, 3, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}));
  write_array(dir.path("b.npy"), f32_array({1}, {-30}));
  auto r = run_cli(dir, "run --device opencl:0 '" + example_file("conv.tile") +
                            "' -i I=i.npy -i K=k.npy -i B=b.npy -o out --repeat 2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(" on opencl:0\n") != std::string::npos);
  CHECK(field(r.out, "cache:", "compiles") == "1");
  CHECK(field(r.out, "cache:", "hits") == "2");
  // 3x3 neighbourhood sums [[12,21,16],[27,45,33],[24,39,28]], minus 30, then relu.
  CHECK(values_of(read_array(dir.path("out/O.npy"))) ==
        std::vector<double>{0, 0, 0, 0, 15, 3, 0, 9, 0});
}

}  // namespace
}  // namespace plaidml_cli::testing
