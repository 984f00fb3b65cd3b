// What the null device does beyond the plugin ABI: its memory option, its refusal to launch,
// its test switch that loses a device mid-run, and how plaidml sees it when PLAIDML_PLUGIN_PATH
// offers it.
#include <stdlib.h>

#include <cstring>
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

TEST_CASE("null device: PLAIDML_NULL_DEVICE_LOST_AFTER loses the device after that many calls") {
  const plaidml_plugin* p = plugin();
  setenv("PLAIDML_NULL_DEVICE_LOST_AFTER", "2", 1);
  Device lost;  // read when the device opens
  unsetenv("PLAIDML_NULL_DEVICE_LOST_AFTER");
  Device kept;
  plaidml_plugin_buffer a = lost.buffer(8);  // call 1
  const char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(p->write(lost.get(), a, 0, bytes, 8) == PLAIDML_PLUGIN_OK);  // call 2
  const std::string message =
      "the null device was lost after 2 calls (PLAIDML_NULL_DEVICE_LOST_AFTER)";
  char back[8] = {};
  CHECK(p->read(lost.get(), a, 0, back, 8) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(error() == message);
  plaidml_plugin_buffer b = nullptr;
  CHECK(p->allocate(lost.get(), 8, &b) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(b == nullptr);
  CHECK(p->copy(lost.get(), a, 0, a, 4, 4) == PLAIDML_PLUGIN_DEVICE_ERROR);
  plaidml_plugin_executable exe = nullptr;
  CHECK(lost.load("spirv", {'x'}, "kernel_a", &exe) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(exe == nullptr);
  CHECK(p->synchronize(lost.get()) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(error() == message);
  p->free_buffer(lost.get(), a);  // frees still free: no leak under ASan
  // Another device of the plugin, opened without the variable, is unaffected.
  plaidml_plugin_buffer c = kept.buffer(8);
  CHECK(p->write(kept.get(), c, 0, bytes, 8) == PLAIDML_PLUGIN_OK);
  CHECK(p->read(kept.get(), c, 0, back, 8) == PLAIDML_PLUGIN_OK);
  CHECK(std::memcmp(back, bytes, 8) == 0);
}

TEST_CASE("null device: PLAIDML_NULL_DEVICE_LOST_AFTER must be a number") {
  const plaidml_plugin* p = plugin();
  setenv("PLAIDML_NULL_DEVICE_LOST_AFTER", "soon", 1);
  plaidml_plugin_device d = nullptr;
  CHECK(p->open_device(0, nullptr, 0, &d) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  unsetenv("PLAIDML_NULL_DEVICE_LOST_AFTER");
  CHECK(error() == "PLAIDML_NULL_DEVICE_LOST_AFTER must be a number of calls, got 'soon'");
  CHECK(d == nullptr);
}
