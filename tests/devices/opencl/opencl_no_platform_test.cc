// A machine without OpenCL drivers (OCL_ICD_VENDORS points at an empty directory, set by this
// test's CTest ENVIRONMENT): the plugin reports "no devices" with the reason, the registry lists
// OpenCL as unavailable with it, and the CPU keeps working.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/parse/parse.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"
#include "opencl_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

std::string expected_reason() {
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  REQUIRE(vendors != nullptr);  // this binary runs only under CTest's ENVIRONMENT
  return std::string("no OpenCL platform found (is an ICD installed? OCL_ICD_VENDORS=") + vendors +
         ")";
}

}  // namespace

TEST_CASE("opencl without a platform: no devices, with the reason") {
  std::string reason = expected_reason();
  const plaidml_plugin* p = opencl_plugin();
  uint32_t count = 7;
  CHECK(p->device_count(&count) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(count == 7);
  CHECK(last_error(p) == reason);
  plaidml_plugin_device dev = nullptr;
  CHECK(p->open_device(0, nullptr, 0, &dev) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(last_error(p) == reason);
}

TEST_CASE("opencl without a platform: the registry lists it as unavailable, the CPU works") {
  std::string reason = expected_reason();
  auto list = devices::list_devices({PLAIDML_TEST_OPENCL_DIR});
  REQUIRE(list.size() >= 2);  // other plugins of the build (Vulkan) share the folder
  CHECK(list[0].id == "cpu:0");
  CHECK(list[0].available);
  auto opencl = std::find_if(list.begin(), list.end(),
                             [](const devices::DeviceEntry& e) { return e.id == "opencl"; });
  REQUIRE(opencl != list.end());
  CHECK_FALSE(opencl->available);
  CHECK(opencl->unavailable_reason == reason);

  auto rt = jit::Runtime::create({});
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  auto missing = (*rt)->find_device("opencl");
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message() == "device 'opencl' is unavailable: " + reason);
  auto program = parse::parse_tile("function (A[N]) -> (B) { B = A * 2; }", "test");
  REQUIRE(program.has_value());
  auto a = (*rt)->allocate(0, {DType::F32, {3}});
  REQUIRE(a.has_value());
  std::vector<float> in = {1, 2, 3}, out(3);
  REQUIRE((*rt)->write(**a, in.data(), 12).is_ok());
  std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>> outputs;
  auto s = jit::run_by_name(**rt, *program, 0, {{"A", *a}}, &outputs);
  INFO(s.message());
  REQUIRE(s.is_ok());
  REQUIRE(outputs.size() == 1);
  REQUIRE((*rt)->read(*outputs[0].second, out.data(), 12).is_ok());
  CHECK(out == std::vector<float>{2, 4, 6});
}
