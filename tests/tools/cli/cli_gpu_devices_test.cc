// `plaidml run --device opencl:0` and `--device vulkan:0`: the same example and hand-computed
// values as on the CPU, through each GPU plugin (PoCL and lavapipe in CI). A device that this
// machine does not have is skipped with a message saying why (`plaidml devices` gives the reason).
#include <doctest/doctest.h>

#include <string>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

// Empty when `id` is listed as available; else why not.
std::string unavailable_reason(const ScratchDir& dir, const std::string& id) {
  CliResult r = run_cli(dir, "devices");
  if (r.exit_code != 0) return "`plaidml devices` failed: " + r.err;
  size_t at = r.out.find("\n" + id + " ");
  if (at == std::string::npos) return id + " is not listed";
  std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  return line.find("unavailable") == std::string::npos ? "" : line;
}

void run_conv_example(const std::string& id) {
  ScratchDir dir;
  std::string why = unavailable_reason(dir, id);
  if (!why.empty()) {
    MESSAGE(id << ": skipped (" << why << ")");
    return;
  }
  write_array(dir.path("i.npy"), f32_array({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  write_array(dir.path("k.npy"), f32_array({3, 3, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}));
  write_array(dir.path("b.npy"), f32_array({1}, {-30}));
  auto r = run_cli(dir, "run --device " + id + " '" + example_file("conv.tile") +
                            "' -i I=i.npy -i K=k.npy -i B=b.npy -o out --repeat 2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(" on " + id + "\n") != std::string::npos);
  CHECK(field(r.out, "cache:", "compiles") == "1");
  CHECK(field(r.out, "cache:", "hits") == "2");
  // 3x3 neighbourhood sums [[12,21,16],[27,45,33],[24,39,28]], minus 30, then relu.
  CHECK(values_of(read_array(dir.path("out/O.npy"))) ==
        std::vector<double>{0, 0, 0, 0, 15, 3, 0, 9, 0});
}

TEST_CASE("run the conv example on opencl:0 (same padding, bias, relu)") {
  run_conv_example("opencl:0");
}

TEST_CASE("run the conv example on vulkan:0 (same padding, bias, relu)") {
  run_conv_example("vulkan:0");
}

}  // namespace
}  // namespace plaidml_cli::testing
