// The tiled contraction kernels run on lavapipe through the Vulkan plugin and compared with
// the reference interpreter, for a device with Vulkan's minimum limits (the tile search then
// picks small tiles) and for one with a large GPU's limits (large tiles, several chunks).
#include <doctest/doctest.h>

#include "lavapipe_device.h"
#include "tiled_cases.h"

namespace plaidml::jit {
namespace {

using testing::Device;

void run_all(const SpirvTarget& t) {
  Device dev;
  for (const testing::TiledCase& c : testing::tiled_cases()) {
    CAPTURE(c.name);
    const std::vector<HostTensor> inputs = testing::case_inputs(c, 21);
    Artifact artifact;
    std::string report = testing::run_spirv(dev, c.tile, inputs, t, c.tolerance, &artifact);
    CHECK_MESSAGE(report.empty(), c.name << ": " << report);
    CHECK_MESSAGE(testing::has_tiled_kernel(artifact.bytes), c.name << ": not tiled");
  }
}

TEST_CASE("spirv tiled lavapipe: Vulkan's minimum limits") {
  run_all(testing::tiled_target(128, 16384, 1));
}
TEST_CASE("spirv tiled lavapipe: a large GPU's limits") {
  run_all(testing::tiled_target(1024, 49152, 132));
}

}  // namespace
}  // namespace plaidml::jit
