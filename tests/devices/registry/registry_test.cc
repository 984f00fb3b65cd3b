// Device discovery: the built-in CPU, plugin modules from a directory, and every way a module
// can fail (listed as unavailable with the reason).
#include "devices/registry.h"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace plaidml;
using namespace plaidml::devices;

namespace {

const std::string kDir = PLAIDML_TEST_PLUGIN_DIR;

const DeviceEntry* find(const std::vector<DeviceEntry>& list, const std::string& id) {
  for (const auto& e : list) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("registry: without plugins, only the CPU") {
  auto list = list_devices({});
  REQUIRE(list.size() == 1);
  CHECK(list[0].id == "cpu:0");
  CHECK(list[0].available);
  CHECK(list[0].module_path.empty());
  CHECK(list[0].info.kind == "cpu");
  auto dev = open_device(list[0], {{"num_threads", "2"}});
  REQUIRE(dev.has_value());
  CHECK((*dev)->info().compute_units == 2);
}

TEST_CASE("registry: a good plugin module lists its devices after the CPU") {
  auto list = list_devices({kDir});
  CHECK(list[0].id == "cpu:0");
  const DeviceEntry* fake0 = find(list, "fake:0");
  const DeviceEntry* fake1 = find(list, "fake:1");
  REQUIRE(fake0);
  REQUIRE(fake1);
  CHECK(fake0->available);
  CHECK(fake0->module_path == kDir + "/libplaidml_device_fake.so");
  CHECK(fake0->info.name == "Fake GPU zero");
  CHECK(fake1->info.name == "Fake GPU one");
  CHECK(fake0->info.vendor == "Fake Inc.");
  CHECK(fake0->info.formats == std::vector<std::string>{"fake-spirv", "fake-ptx"});
  CHECK(fake0->info.local_memory_bytes == 49152);
  CHECK(fake0->info.max_workgroup_size == 1024);
  CHECK(fake0->info.fp16);
  CHECK_FALSE(fake0->info.fp64);

  auto dev = open_device(*fake1, {});
  REQUIRE(dev.has_value());
  auto buf = (*dev)->allocate(8);
  REQUIRE(buf.has_value());
  uint64_t in = 0x1122334455667788ull, out = 0;
  REQUIRE((*dev)->write(**buf, 0, &in, 8).is_ok());
  REQUIRE((*dev)->read(**buf, 0, &out, 8).is_ok());
  CHECK(out == in);
  auto exe = (*dev)->load("fake-spirv", {0}, {"main"});
  CHECK(exe.status().code() == StatusCode::kUnsupported);
  CHECK(exe.status().message() == "device fake:1: load: the fake device loads nothing");
  // Its vtable ends before the optional members: no wrap_host, so constants are copied.
  CHECK_FALSE((*dev)->can_wrap_host());
  auto wrapped = (*dev)->wrap_host(&in, 8);
  CHECK(wrapped.status().code() == StatusCode::kUnsupported);
  CHECK(wrapped.status().message() == "device fake:1 cannot use host memory in place");
}

TEST_CASE("registry: broken modules are listed as unavailable, with the reason") {
  auto list = list_devices({kDir});
  const DeviceEntry* bad = find(list, "badabi");
  REQUIRE(bad);
  CHECK_FALSE(bad->available);
  CHECK(bad->unavailable_reason == "plugin " + kDir +
                                       "/libplaidml_device_badabi.so: plugin ABI version 999, "
                                       "this plaidml supports version 1");
  const DeviceEntry* noentry = find(list, "noentry");
  REQUIRE(noentry);
  CHECK(noentry->unavailable_reason ==
        "plugin " + kDir +
            "/libplaidml_device_noentry.so: not a plaidml device plugin (no "
            "plaidml_plugin_get_v1 symbol)");
  const DeviceEntry* nullentry = find(list, "nullentry");
  REQUIRE(nullentry);
  CHECK(nullentry->unavailable_reason ==
        "plugin " + kDir +
            "/libplaidml_device_nullentry.so: plaidml_plugin_get_v1 returned NULL (it cannot "
            "run here)");
  const DeviceEntry* nodriver = find(list, "nodriver");
  REQUIRE(nodriver);
  CHECK(nodriver->unavailable_reason == "driver libfake.so.1 not found");
  auto open = open_device(*nodriver, {});
  CHECK(open.status().code() == StatusCode::kNotFound);
  CHECK(open.status().message() == "device nodriver is unavailable: driver libfake.so.1 not found");
}

TEST_CASE("registry: a module listed twice loads once, a missing file is an error") {
  auto list = list_devices({kDir, kDir + "/libplaidml_device_fake.so", "/nonexistent/dir"});
  int fakes = 0;
  for (const auto& e : list) fakes += e.id.rfind("fake", 0) == 0;
  CHECK(fakes == 2);
  auto missing = load_plugin_module("/nonexistent/libplaidml_device_x.so");
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message() == "plugin /nonexistent/libplaidml_device_x.so: no such file");
}

TEST_CASE("registry: not-a-library files are unavailable with dlopen's reason") {
  auto r = load_plugin_module(kDir + "/../CMakeFiles");
  CHECK_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kUnsupported);
  CHECK(r.status().message().find("cannot load") != std::string::npos);
}

TEST_CASE("registry: search path from PLAIDML_PLUGIN_PATH after the library directory") {
  setenv("PLAIDML_PLUGIN_PATH", "/a/b::/c", 1);
  auto dirs = plugin_search_dirs();
  unsetenv("PLAIDML_PLUGIN_PATH");
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0].size() > std::string("/plaidml/devices").size());
  CHECK(dirs[0].find("/plaidml/devices") ==
        dirs[0].size() - std::string("/plaidml/devices").size());
  CHECK(dirs[1] == "/a/b");
  CHECK(dirs[2] == "/c");
}
