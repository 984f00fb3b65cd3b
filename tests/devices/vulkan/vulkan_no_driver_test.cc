// A machine where Vulkan cannot work, as set up by this binary's CTest ENVIRONMENT: either no
// driver (VK_DRIVER_FILES names a missing file, so vkCreateInstance gives
// VK_ERROR_INCOMPATIBLE_DRIVER) or no loader (PLAIDML_VULKAN_LOADER names a missing library).
// The plugin reports "no devices" with the reason, the registry lists Vulkan as unavailable with
// it, and the CPU keeps working.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/parse/parse.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"
#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// What the reason must say, from the environment this binary runs under.
std::string expected_reason() {
  if (const char* loader = std::getenv("PLAIDML_VULKAN_LOADER")) {
    return std::string("the Vulkan loader ") + loader + " could not be loaded (";
  }
  const char* files = std::getenv("VK_DRIVER_FILES");
  REQUIRE(files != nullptr);  // this binary runs only under CTest's ENVIRONMENT
  return std::string("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER; "
                     "is an ICD such as mesa-vulkan-drivers installed? VK_DRIVER_FILES=") +
         files + ")";
}

}  // namespace

TEST_CASE("vulkan unavailable: no devices, with the reason") {
  std::string reason = expected_reason();
  const plaidml_plugin* p = vulkan_plugin();
  uint32_t count = 7;
  CHECK(p->device_count(&count) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(count == 7);
  std::string message = last_error(p);
  CHECK(message.rfind(reason, 0) == 0);
  plaidml_plugin_device dev = nullptr;
  CHECK(p->open_device(0, nullptr, 0, &dev) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(last_error(p) == message);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  CHECK(p->describe_device(0, &info) == PLAIDML_PLUGIN_NOT_FOUND);
}

TEST_CASE("vulkan unavailable: the registry lists it with the reason, the CPU works") {
  std::string reason = expected_reason();
  auto list = devices::list_devices({PLAIDML_TEST_VULKAN_MODULE});
  REQUIRE(list.size() == 2);
  CHECK(list[0].id == "cpu:0");
  CHECK(list[0].available);
  CHECK(list[1].id == "vulkan");
  CHECK_FALSE(list[1].available);
  CHECK(list[1].unavailable_reason.rfind(reason, 0) == 0);

  setenv("PLAIDML_PLUGIN_PATH", PLAIDML_TEST_VULKAN_MODULE, 1);
  auto rt = jit::Runtime::create({});
  unsetenv("PLAIDML_PLUGIN_PATH");
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  auto missing = (*rt)->find_device("vulkan");
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message().find("device 'vulkan' is unavailable: " + reason) == 0);
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
