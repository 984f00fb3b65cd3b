// The Vulkan plugin as plaidml finds it: listed by the registry with its description, and
// driven through devices::Device. This program links plaidml statically, so the module's
// directory is named explicitly.
#include <string>
#include <vector>

#include "devices/device.h"
#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

const devices::DeviceEntry* find(const std::vector<devices::DeviceEntry>& list,
                                 const std::string& id) {
  for (const auto& e : list) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("vulkan registry: lists vulkan:0 with what the device supports") {
  auto list = devices::list_devices({PLAIDML_TEST_VULKAN_DIR});
  REQUIRE(list.size() >= 2);
  CHECK(list[0].id == "cpu:0");
  const devices::DeviceEntry* vk = find(list, "vulkan:0");
  REQUIRE(vk != nullptr);
  INFO(vk->unavailable_reason);
  CHECK(vk->available);
  CHECK(vk->module_path == std::string(PLAIDML_TEST_VULKAN_DIR) + "/libplaidml_device_vulkan.so");
  CHECK(vk->info.formats == std::vector<std::string>{"spirv"});
  CHECK(vk->info.memory_bytes > 0);
  CHECK(vk->info.subgroup_size >= 1);
  CHECK(vk->info.memory_heaps.find("device-local") != std::string::npos);
  // INT_LIMITS makes the integer widths the device's own answer.
  plaidml_plugin_device_info raw{};
  raw.struct_size = sizeof(raw);
  REQUIRE(vulkan_plugin()->describe_device(0, &raw) == PLAIDML_PLUGIN_OK);
  CHECK(vk->info.int8 == bool(raw.flags & PLAIDML_PLUGIN_DEVICE_INT8));
  CHECK(vk->info.int16 == bool(raw.flags & PLAIDML_PLUGIN_DEVICE_INT16));
  CHECK(vk->info.int64 == bool(raw.flags & PLAIDML_PLUGIN_DEVICE_INT64));
}

TEST_CASE("vulkan registry: devices::Device loads and launches SPIR-V") {
  auto list = devices::list_devices({PLAIDML_TEST_VULKAN_DIR});
  const devices::DeviceEntry* vk = find(list, "vulkan:0");
  REQUIRE(vk != nullptr);
  auto dev = devices::open_device(*vk, {});
  INFO(dev.status().message());
  REQUIRE(dev.has_value());
  devices::Device& d = **dev;
  CHECK(d.id() == "vulkan:0");
  auto exe = d.load("spirv", spirv_module("add_then_twice"), {"add_one", "twice"});
  INFO(exe.status().message());
  REQUIRE(exe.has_value());
  constexpr int kN = 1000;
  std::vector<float> a = ramp(kN), c(kN, 0);
  auto ba = d.allocate(kN * 4), bb = d.allocate(kN * 4), bc = d.allocate(kN * 4);
  REQUIRE((ba.has_value() && bb.has_value() && bc.has_value()));
  REQUIRE(d.write(**ba, 0, a.data(), kN * 4).is_ok());
  devices::LaunchParams params;
  params.grid = {16, 1, 1};
  params.workgroup = {64, 1, 1};
  std::vector<const devices::DeviceBuffer*> args = {ba->get(), bb->get(), bc->get()};
  REQUIRE(d.launch(**exe, params, args).is_ok());
  params.kernel = 1;
  params.grid = {32, 1, 1};
  params.workgroup = {32, 1, 1};
  REQUIRE(d.launch(**exe, params, args).is_ok());
  REQUIRE(d.synchronize().is_ok());
  REQUIRE(d.read(**bc, 0, c.data(), kN * 4).is_ok());
  for (int i = 0; i < kN; ++i) REQUIRE(c[i] == (a[i] + 1.0f) * 2.0f);
  // A module that is not SPIR-V reaches the caller as an invalid argument with the reason.
  auto failed = d.load("spirv", std::vector<uint8_t>(16, 0), {"k"});
  CHECK(failed.status().code() == StatusCode::kInvalidArgument);
  CHECK(failed.status().message().find("not a SPIR-V module") != std::string::npos);
}
