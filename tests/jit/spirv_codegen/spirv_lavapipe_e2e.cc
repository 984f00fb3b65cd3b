// The generated SPIR-V run on lavapipe (Mesa's CPU Vulkan driver) through the Vulkan plugin's
// vtable, compared with the reference interpreter: every conformance case at its first shape
// set, with the conformance tolerances.
#include <doctest/doctest.h>

#include "conformance_case.h"
#include "lavapipe_device.h"

namespace plaidml::jit {
namespace {

using testing::Device;
using testing::run_spirv;

template <typename T>
const T& per_input(const std::vector<T>& v, size_t i) {
  return v.size() == 1 ? v[0] : v.at(i);
}

// "" when the case's outputs on the device match the interpreter's; else what differs.
std::string run_case(Device& dev, const conformance::Case& c, uint64_t seed) {
  std::vector<HostTensor> inputs;
  const conformance::ShapeSet& dims = c.shapes.at(0);
  for (size_t i = 0; i < dims.size(); ++i) {
    Shape shape(per_input(c.dtypes, i), dims[i]);
    plaidml::testing::RandomOptions options =
        c.ranges.empty() ? plaidml::testing::RandomOptions{} : per_input(c.ranges, i);
    inputs.push_back(plaidml::testing::random_tensor(shape, seed + i, options));
  }
  SpirvTarget target;
  target.int8 = target.int16 = target.int64 = target.float64 = target.float_controls = true;
  return run_spirv(dev, c.tile, inputs, target, c.tolerance);
}

void run_family(const conformance::Family& family) {
  Device dev;
  int passed = 0;
  for (const conformance::Case& c : family.cases) {
    CAPTURE(c.name);
    std::string report = run_case(dev, c, 1234);
    CHECK_MESSAGE(report.empty(), c.name << ": " << report);
    passed += report.empty() ? 1 : 0;
  }
  MESSAGE(family.name << ": " << passed << " of " << family.cases.size() << " match on lavapipe");
}

TEST_CASE("spirv lavapipe: contractions") { run_family(conformance::contraction_cases()); }
TEST_CASE("spirv lavapipe: convolutions") { run_family(conformance::convolution_cases()); }
TEST_CASE("spirv lavapipe: pooling and reductions") {
  run_family(conformance::pooling_reduction_cases());
}
TEST_CASE("spirv lavapipe: elementwise") { run_family(conformance::elementwise_cases()); }
TEST_CASE("spirv lavapipe: dtypes") { run_family(conformance::dtype_cases()); }
TEST_CASE("spirv lavapipe: structural") { run_family(conformance::structural_cases()); }
TEST_CASE("spirv lavapipe: edge values") { run_family(conformance::edge_cases()); }

}  // namespace
}  // namespace plaidml::jit
