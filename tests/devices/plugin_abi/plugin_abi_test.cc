// The plugin-ABI suite: what include/plaidml/plugin.h promises, checked against one plugin
// module (plugin_fixture.h says which): the vtable's version and sizes, device description
// for callers with older structs, options, buffers and their ranges, allocation failure,
// freed, closed and foreign handles, unload and close while things live, artifact formats and
// launch arguments. CMakeLists.txt runs it against every plugin (null, OpenCL, Vulkan).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "plugin_fixture.h"

using namespace plaidml::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

plaidml_plugin_launch_info launch_info(uint32_t kernel) {
  plaidml_plugin_launch_info info{};
  info.struct_size = sizeof(info);
  info.kernel = kernel;
  info.parallel_extent = 1;
  info.grid[0] = info.grid[1] = info.grid[2] = 1;
  info.workgroup[0] = info.workgroup[1] = info.workgroup[2] = 1;
  return info;
}

}  // namespace

TEST_CASE("the entry point gives a vtable of this ABI version with every required member") {
  const plaidml_plugin* p = plugin();
  CHECK(p->abi_version == PLAIDML_PLUGIN_ABI_VERSION);
  CHECK(p->struct_size >= PLAIDML_PLUGIN_REQUIRED_SIZE);
  REQUIRE(p->name != nullptr);
  for (const char* c = p->name; *c; ++c) CHECK(((*c >= 'a' && *c <= 'z') || *c == '_'));
  const void* required[] = {
      reinterpret_cast<const void*>(p->last_error), reinterpret_cast<const void*>(p->device_count),
      reinterpret_cast<const void*>(p->describe_device),
      reinterpret_cast<const void*>(p->open_device), reinterpret_cast<const void*>(p->query_device),
      reinterpret_cast<const void*>(p->close_device), reinterpret_cast<const void*>(p->allocate),
      reinterpret_cast<const void*>(p->free_buffer), reinterpret_cast<const void*>(p->write),
      reinterpret_cast<const void*>(p->read), reinterpret_cast<const void*>(p->copy),
      reinterpret_cast<const void*>(p->load), reinterpret_cast<const void*>(p->unload),
      reinterpret_cast<const void*>(p->launch), reinterpret_cast<const void*>(p->synchronize)};
  for (const void* fn : required) CHECK(fn != nullptr);
  REQUIRE(p->last_error() != nullptr);
  uint32_t count = 0;
  INFO(error());
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  CHECK(count >= 1);
}

TEST_CASE("describe fills a current struct, and an older one only up to its size") {
  const plaidml_plugin* p = plugin();
  plaidml_plugin_device_info full{};
  full.struct_size = sizeof(full);
  REQUIRE(p->describe_device(0, &full) == PLAIDML_PLUGIN_OK);
  REQUIRE(full.name != nullptr);
  CHECK(std::strlen(full.name) > 0);
  CHECK(full.artifact_formats != nullptr);
  CHECK(full.memory_bytes > 0);

  // A caller built before subgroup_size was appended: the bytes past its struct stay as they
  // were.
  constexpr size_t old_size = offsetof(plaidml_plugin_device_info, subgroup_size);
  plaidml_plugin_device_info old;
  std::memset(&old, 0xAB, sizeof(old));
  old.struct_size = old_size;
  REQUIRE(p->describe_device(0, &old) == PLAIDML_PLUGIN_OK);
  CHECK(std::string(old.name) == full.name);
  const auto* tail = reinterpret_cast<const unsigned char*>(&old) + old_size;
  for (size_t i = 0; i < sizeof(old) - old_size; ++i) CHECK(tail[i] == 0xAB);

  plaidml_plugin_device_info tiny{};
  tiny.struct_size = 8;
  CHECK(p->describe_device(0, &tiny) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "info->struct_size is 8"));
  CHECK(p->describe_device(0, nullptr) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "info is NULL");
}

TEST_CASE("a device index past the end is NOT_FOUND, with the count") {
  const plaidml_plugin* p = plugin();
  uint32_t count = 0;
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  CHECK(p->describe_device(count, &info) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(contains(error(), "no device " + std::to_string(count)));
  CHECK(contains(error(), "(there are " + std::to_string(count) + ")"));
  plaidml_plugin_device d = nullptr;
  CHECK(p->open_device(count, nullptr, 0, &d) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(d == nullptr);
}

TEST_CASE("options: NULL arrays and entries are refused, unknown keys ignored") {
  const plaidml_plugin* p = plugin();
  plaidml_plugin_device d = nullptr;
  CHECK(p->open_device(0, nullptr, 1, &d) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "options is NULL");
  plaidml_plugin_option null_value{"no_such_option", nullptr};
  CHECK(p->open_device(0, &null_value, 1, &d) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "option 0 has a NULL key or value");
  CHECK(d == nullptr);
  Device unknown("no_such_option", "1");
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  CHECK(p->query_device(unknown.get(), &info) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("NULL handles and outputs are INVALID_ARGUMENT") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_buffer b = nullptr;
  CHECK(p->allocate(nullptr, 4, &b) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "device is NULL");
  CHECK(p->allocate(dev.get(), 4, nullptr) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "out_buffer is NULL");
  CHECK(p->open_device(0, nullptr, 0, nullptr) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(p->device_count(nullptr) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  float x = 0;
  CHECK(p->write(dev.get(), nullptr, 0, &x, 4) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "write: buffer is NULL");
  plaidml_plugin_buffer real = dev.buffer(4);
  CHECK(p->read(dev.get(), real, 0, nullptr, 4) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "read: data is NULL");
  CHECK(p->synchronize(nullptr) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  // The calls without a status do nothing with NULL.
  p->free_buffer(dev.get(), nullptr);
  p->unload(dev.get(), nullptr);
  p->close_device(nullptr);
}

TEST_CASE("buffers round-trip with offsets, device copies and empty buffers") {
  const plaidml_plugin* p = plugin();
  Device dev;
  std::vector<float> values(1000);
  std::iota(values.begin(), values.end(), 1.0f);
  plaidml_plugin_buffer a = dev.buffer(4000), b = dev.buffer(4000);
  REQUIRE(p->write(dev.get(), a, 0, values.data(), 4000) == PLAIDML_PLUGIN_OK);
  REQUIRE(p->copy(dev.get(), a, 400, b, 0, 800) == PLAIDML_PLUGIN_OK);
  std::vector<float> back(200, -1.0f);
  REQUIRE(p->read(dev.get(), b, 0, back.data(), 800) == PLAIDML_PLUGIN_OK);
  for (int i = 0; i < 200; ++i) CHECK(back[i] == values[100 + i]);
  float one = 0;
  REQUIRE(p->read(dev.get(), a, 3996, &one, 4) == PLAIDML_PLUGIN_OK);
  CHECK(one == 1000.0f);

  plaidml_plugin_buffer empty = dev.buffer(0);
  CHECK(p->write(dev.get(), empty, 0, nullptr, 0) == PLAIDML_PLUGIN_OK);
  CHECK(p->read(dev.get(), empty, 0, nullptr, 0) == PLAIDML_PLUGIN_OK);
  CHECK(p->copy(dev.get(), empty, 0, a, 0, 0) == PLAIDML_PLUGIN_OK);
  CHECK(p->synchronize(dev.get()) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("transfers outside a buffer and overlapping copies are INVALID_ARGUMENT") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_buffer a = dev.buffer(64);
  std::array<char, 64> host{};
  CHECK(p->write(dev.get(), a, 60, host.data(), 8) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "write of 8 bytes at offset 60 is outside the buffer of 64 bytes");
  CHECK(p->read(dev.get(), a, UINT64_MAX, host.data(), 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(p->copy(dev.get(), a, 0, a, 16, 32) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "copy within one buffer with overlapping ranges (32 bytes from offset 0 to 16)");
  plaidml_plugin_buffer small = dev.buffer(4);
  CHECK(p->copy(dev.get(), a, 0, small, 0, 8) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "copy destination of 8 bytes at offset 0 is outside the buffer of 4 bytes");
  CHECK(p->copy(dev.get(), a, 0, a, 32, 32) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("an allocation beyond the device is OUT_OF_MEMORY with the size") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_buffer b = nullptr;
  CHECK(p->allocate(dev.get(), UINT64_MAX, &b) == PLAIDML_PLUGIN_OUT_OF_MEMORY);
  CHECK(contains(error(), std::to_string(UINT64_MAX) + " bytes"));
  CHECK(b == nullptr);
  CHECK(dev.buffer(16) != nullptr);  // the device still works
}

TEST_CASE("a freed buffer is refused, and freeing it twice does nothing") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_buffer b = dev.buffer(16);
  p->free_buffer(dev.get(), b);
  float x[4] = {};
  CHECK(p->write(dev.get(), b, 0, x, 16) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "write: the buffer is not a live buffer of this device (freed already, or "
                   "another device's)");
  p->free_buffer(dev.get(), b);
  plaidml_plugin_buffer again = dev.buffer(16);
  CHECK(p->write(dev.get(), again, 0, x, 16) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("another device's buffer is refused") {
  const plaidml_plugin* p = plugin();
  Device one, two;
  plaidml_plugin_buffer b = one.buffer(16);
  float x[4] = {};
  CHECK(p->read(two.get(), b, 0, x, 16) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "not a live buffer of this device"));
  p->free_buffer(two.get(), b);  // not two's: ignored, and one's buffer stays
  CHECK(p->read(one.get(), b, 0, x, 16) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("a closed device is refused, and closing it twice does nothing") {
  const plaidml_plugin* p = plugin();
  plaidml_plugin_device d = nullptr;
  REQUIRE(p->open_device(0, nullptr, 0, &d) == PLAIDML_PLUGIN_OK);
  close_checked(d);
  plaidml_plugin_buffer b = nullptr;
  CHECK(p->allocate(d, 4, &b) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "is not an open device"));
  p->close_device(d);
}

TEST_CASE("unloading leaves buffers usable, and closing frees what is still live") {
  const plaidml_plugin* p = plugin();
  plaidml_plugin_device d = nullptr;
  REQUIRE(p->open_device(0, nullptr, 0, &d) == PLAIDML_PLUGIN_OK);
  {
    Device dev;  // a second device that stays open: its own things are untouched below
    plaidml_plugin_buffer kept = dev.buffer(8);
    plaidml_plugin_executable exe = dev.must_load();
    p->unload(dev.get(), exe);
    p->unload(dev.get(), exe);  // twice: nothing
    uint64_t v = 42, back = 0;
    CHECK(p->write(dev.get(), kept, 0, &v, 8) == PLAIDML_PLUGIN_OK);
    CHECK(p->read(dev.get(), kept, 0, &back, 8) == PLAIDML_PLUGIN_OK);
    CHECK(back == 42);
  }
  // Buffers and an executable left live when the device closes: freed with it (the sanitizer
  // build's leak check sees any that is not, and for Vulkan so does the validation layer's
  // object tracker, which close_checked hears from).
  plaidml_plugin_buffer left = nullptr;
  REQUIRE(p->allocate(d, 1024, &left) == PLAIDML_PLUGIN_OK);
  std::string format = env("PLAIDML_TEST_PLUGIN_FORMAT");
  std::string symbol = env("PLAIDML_TEST_PLUGIN_SYMBOL");
  std::vector<char> code = artifact();
  const char* sym = symbol.c_str();
  plaidml_plugin_executable exe = nullptr;
  REQUIRE(p->load(d, format.c_str(), code.data(), code.size(), &sym, 1, &exe) ==
          PLAIDML_PLUGIN_OK);
  close_checked(d);
}

TEST_CASE("an artifact format the device does not list is UNSUPPORTED, naming what it takes") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->query_device(dev.get(), &info) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_executable exe = nullptr;
  CHECK(dev.load("no-such-format", artifact(), "k", &exe) == PLAIDML_PLUGIN_UNSUPPORTED);
  CHECK(error() == std::string("artifact format 'no-such-format' is not supported by ") +
                       info.name + " (it accepts " + info.artifact_formats + ")");
  CHECK(exe == nullptr);
  std::string format = env("PLAIDML_TEST_PLUGIN_FORMAT");
  const char* null_symbol = nullptr;
  std::vector<char> code = artifact();
  CHECK(p->load(dev.get(), format.c_str(), code.data(), code.size(), &null_symbol, 1, &exe) ==
        PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "symbol 0 is NULL");
}

TEST_CASE("a plugin that builds code refuses garbage and a missing symbol, with its reason") {
  if (env("PLAIDML_TEST_PLUGIN_BUILDS") != "1") return;  // the null device builds nothing
  const plaidml_plugin* p = plugin();
  Device dev;
  std::string format = env("PLAIDML_TEST_PLUGIN_FORMAT");
  plaidml_plugin_executable exe = nullptr;
  std::vector<char> garbage(64, '\x7f');
  plaidml_plugin_status s = dev.load(format.c_str(), garbage, "k", &exe);
  CHECK(s != PLAIDML_PLUGIN_OK);
  CHECK(s != PLAIDML_PLUGIN_INTERNAL);
  CHECK(!error().empty());
  CHECK(dev.load(format.c_str(), artifact(), "no_such_kernel", &exe) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(contains(error(), "no_such_kernel"));
  CHECK(exe == nullptr);
  (void)p;
}

TEST_CASE("launch arguments are checked before anything runs") {
  const plaidml_plugin* p = plugin();
  Device dev;
  plaidml_plugin_executable exe = dev.must_load();
  plaidml_plugin_buffer a = dev.buffer(4096), b = dev.buffer(4096);
  plaidml_plugin_buffer args[] = {a, b};
  plaidml_plugin_launch_info info = launch_info(1);
  CHECK(p->launch(dev.get(), exe, &info, args, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "kernel index 1 out of range (the executable has 1 kernels)");
  info = launch_info(0);
  info.struct_size = 8;
  CHECK(p->launch(dev.get(), exe, &info, args, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "launch info->struct_size is 8"));
  info = launch_info(0);
  CHECK(p->launch(dev.get(), exe, nullptr, args, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(p->launch(dev.get(), nullptr, &info, args, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(error() == "executable is NULL");
  p->free_buffer(dev.get(), b);
  CHECK(p->launch(dev.get(), exe, &info, args, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "launch: the buffer is not a live buffer"));
  p->unload(dev.get(), exe);
  CHECK(p->launch(dev.get(), exe, &info, args, 1) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(contains(error(), "the executable is not loaded on this device"));
  CHECK(p->synchronize(dev.get()) == PLAIDML_PLUGIN_OK);
}
