// What the null device does beyond the plugin ABI: its memory option, its refusal to launch,
// and how plaidml sees it when PLAIDML_PLUGIN_PATH offers it.
#include <string>

#include "plugin_fixture.h"

using namespace plaidml::testing;

TEST_CASE("null device: allocations beyond its memory option are OUT_OF_MEMORY with the use") {
  const plaidml_plugin* p = plugin();
  Device dev("memory_bytes", "1000");
  plaidml_plugin_buffer a = dev.buffer(600), b = nullptr;
  CHECK(p->allocate(dev.get(), 600, &b) == PLAIDML_PLUGIN_OUT_OF_MEMORY);
  CHECK(error() == "cannot allocate 600 bytes on the null device: 600 of its 1000 bytes are in use");
  p->free_buffer(dev.get(), a);
  CHECK(dev.buffer(1000) != nullptr);
}

TEST_CASE("null device: a memory option that is not a number is refused") {
  const plaidml_plugin* p = plugin();
  plaidml_plugin_option bad{"memory_bytes", "lots"};
  plaidml_plugin_device d = nullptr;
  CHECK(p->open_device(0, &bad, 1, &d) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "memory_bytes must be a number of bytes, got 'lots'");
}

TEST_CASE("null device: a launch runs nothing and says so") {
  const plaidml_plugin* p = plugin();
  Device dev;
  std::vector<char> code = {'x'};
  plaidml_plugin_executable exe = nullptr;
  REQUIRE(dev.load("spirv", code, "kernel_a", &exe) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_buffer b = dev.buffer(4);
  plaidml_plugin_launch_info info{};
  info.struct_size = sizeof(info);
  CHECK(p->launch(dev.get(), exe, &info, &b, 1) == PLAIDML_PLUGIN_UNSUPPORTED);
  CHECK(error() == "the null device launches nothing: kernel 'kernel_a' (1 buffers) did not run");
}
