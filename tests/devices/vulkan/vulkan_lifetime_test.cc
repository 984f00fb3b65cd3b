// Every Vulkan object the plugin creates is destroyed, on the paths that succeed and on those
// that fail. The validation layer's object tracker reports each buffer, memory, pipeline,
// layout, shader module, pool or fence still alive when vkDestroyDevice runs, and
// close_checked (vulkan_test_util.h) fails on that report. LeakSanitizer cannot do this job:
// those objects are the driver's allocations, which the sanitizer pass suppresses
// (tests/lsan-vulkan.supp).
#include <cstdint>
#include <string>
#include <vector>

#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr int kLifetimeN = 1000;  // the element count baked into add_then_twice

// Opens device 0 with direct_host_access = `direct` ("0": transfers go through the staging
// buffer, one more object to destroy).
plaidml_plugin_device open_lifetime_device(const plaidml_plugin* p, const char* direct) {
  plaidml_plugin_option option = {"direct_host_access", direct};
  plaidml_plugin_device d = nullptr;
  plaidml_plugin_status s = p->open_device(0, &option, 1, &d);
  INFO(last_error(p));
  REQUIRE(s == PLAIDML_PLUGIN_OK);
  return d;
}

plaidml_plugin_buffer lifetime_buffer(const plaidml_plugin* p, plaidml_plugin_device d,
                                      const std::vector<float>& values) {
  plaidml_plugin_buffer b = nullptr;
  REQUIRE(p->allocate(d, values.size() * 4, &b) == PLAIDML_PLUGIN_OK);
  REQUIRE(p->write(d, b, 0, values.data(), values.size() * 4) == PLAIDML_PLUGIN_OK);
  return b;
}

plaidml_plugin_status lifetime_launch(const plaidml_plugin* p, plaidml_plugin_device d,
                                      plaidml_plugin_executable exe, uint32_t kernel,
                                      uint32_t local, const std::vector<plaidml_plugin_buffer>& b) {
  plaidml_plugin_launch_info info{};
  info.struct_size = sizeof(info);
  info.kernel = kernel;
  info.parallel_extent = 1;
  info.grid[0] = (kLifetimeN + local - 1) / local;
  info.grid[1] = info.grid[2] = 1;
  info.workgroup[0] = local;
  info.workgroup[1] = info.workgroup[2] = 1;
  return p->launch(d, exe, &info, b.data(), b.size());
}

plaidml_plugin_status load_module(const plaidml_plugin* p, plaidml_plugin_device d,
                                  const std::string& module, std::vector<const char*> symbols,
                                  plaidml_plugin_executable* exe) {
  std::vector<uint8_t> bytes = spirv_module(module);
  return p->load(d, "spirv", bytes.data(), bytes.size(), symbols.data(), symbols.size(), exe);
}

}  // namespace

TEST_CASE("vulkan lifetime: closing a device with work recorded and everything live destroys all") {
  if (!validation_enabled()) return;  // the object tracker is the oracle
  const plaidml_plugin* p = vulkan_plugin();
  for (const char* direct : {"1", "0"}) {
    INFO("direct_host_access = " << direct);
    plaidml_plugin_device d = open_lifetime_device(p, direct);
    plaidml_plugin_executable exe = nullptr;
    // Two pipelines with two layouts (add_one binds 2 buffers, twice 3).
    REQUIRE(load_module(p, d, "add_then_twice", {"add_one", "twice"}, &exe) == PLAIDML_PLUGIN_OK);
    std::vector<float> a = ramp(kLifetimeN);
    plaidml_plugin_buffer ba = lifetime_buffer(p, d, a);
    plaidml_plugin_buffer bb = lifetime_buffer(p, d, std::vector<float>(kLifetimeN, 0.0f));
    plaidml_plugin_buffer bc = lifetime_buffer(p, d, std::vector<float>(kLifetimeN, 0.0f));
    REQUIRE(lifetime_launch(p, d, exe, 0, 64, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
    REQUIRE(lifetime_launch(p, d, exe, 1, 32, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
    float c0 = 0;
    REQUIRE(p->read(d, bc, 0, &c0, 4) == PLAIDML_PLUGIN_OK);
    CHECK(c0 == (a[0] + 1.0f) * 2.0f);
    // Recorded and never synchronised: a descriptor set, a recording command buffer and a copy
    // that closing runs, then destroys with the rest.
    REQUIRE(lifetime_launch(p, d, exe, 0, 64, {bc, bb}) == PLAIDML_PLUGIN_OK);
    REQUIRE(p->copy(d, bb, 0, ba, 0, 64) == PLAIDML_PLUGIN_OK);
    close_checked(p, d);
  }
}

TEST_CASE("vulkan lifetime: failed loads and launches leave no object behind") {
  if (!validation_enabled()) return;
  const plaidml_plugin* p = vulkan_plugin();
  plaidml_plugin_device d = open_lifetime_device(p, "0");
  plaidml_plugin_executable exe = nullptr;
  // Built, then refused on the layer's error: the module, layout and pipeline go.
  CHECK(load_module(p, d, "huge_shared", {"main"}, &exe) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(load_module(p, d, "int64_atomics", {"main"}, &exe) == PLAIDML_PLUGIN_DEVICE_ERROR);
  // The second kernel is missing: the first one's pipeline is never made (checked up front).
  CHECK(load_module(p, d, "add_then_twice", {"add_one", "thrice"}, &exe) ==
        PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(load_module(p, d, "wide_binding", {"wide"}, &exe) == PLAIDML_PLUGIN_UNSUPPORTED);
  CHECK(exe == nullptr);
  // A launch refused for its arguments records nothing.
  REQUIRE(load_module(p, d, "add_then_twice", {"add_one"}, &exe) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_buffer one = lifetime_buffer(p, d, ramp(kLifetimeN));
  CHECK(lifetime_launch(p, d, exe, 0, 64, {one}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  p->unload(d, exe);
  p->free_buffer(d, one);
  close_checked(p, d);
}
