// Runtime with plugin modules on PLAIDML_PLUGIN_PATH (the fake GPU of tests/devices/registry).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

std::unique_ptr<jit::Runtime> runtime_with_plugins(const std::string& device) {
  setenv("PLAIDML_PLUGIN_PATH", PLAIDML_TEST_PLUGIN_DIR, 1);
  jit::RuntimeOptions opts;
  opts.device = device;
  auto rt = jit::Runtime::create(opts);
  unsetenv("PLAIDML_PLUGIN_PATH");
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  return std::move(*rt);
}

}  // namespace

TEST_CASE("runtime plugins: fake GPUs are listed, broken ones say why") {
  auto rt = runtime_with_plugins("fake:1");
  CHECK(rt->find_device("").value() == rt->find_device("fake:1").value());
  CHECK(rt->devices()[rt->find_device("fake:0").value()].kind == "gpu");
  auto nodriver = rt->find_device("nodriver");
  CHECK(nodriver.status().code() == StatusCode::kNotFound);
  CHECK(nodriver.status().message() ==
        "device 'nodriver' is unavailable: driver libfake.so.1 not found");
}

TEST_CASE("runtime plugins: compiling for a device of an unknown format is unsupported") {
  auto rt = runtime_with_plugins("");
  int fake = rt->find_device("fake:0").value();
  auto program = parse_program("function (A[N]) -> (B) { B = A + 1; }");
  auto plan = rt->prepare(program, {{DType::F32, {4}}}, fake);
  CHECK(plan.status().code() == StatusCode::kUnsupported);
  // The formats this build generates follow the device's (CPU and OpenCL always; SPIR-V with
  // the Vulkan device).
  const std::string& message = plan.status().message();
  CHECK(message.rfind(
            "device fake:0 accepts artifact formats [fake-spirv, fake-ptx]; this build generates "
            "elf-object, opencl-c",
            0) == 0);
  // Buffers on the fake device work, and cannot be fed to a CPU run.
  auto a = rt->allocate(fake, {DType::F32, {4}});
  REQUIRE(a.has_value());
  NamedBuffers out;
  auto s = jit::run_by_name(*rt, program, 0, {{"A", *a}}, &out);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "input 'A' is on device fake:0, but the program runs on cpu:0");
}

namespace {

// Whether the fake GPU plugin module is mapped into this process (by file name: the folder may
// be reached through a symlink, and maps show the real path).
bool plugin_loaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/libplaidml_device_fake.so") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("runtime plugins: the CPU's description leaves them unloaded") {
  // plaidml_program_memory reports the device's memory; listing every device to find it loaded
  // the GPU plugins and their drivers (67 MB resident with PoCL and lavapipe) on a CPU context.
  auto rt = runtime_with_plugins("cpu:0");
  auto cpu = rt->device_description(0);
  REQUIRE(cpu.has_value());
  CHECK(cpu->kind == "cpu");
  CHECK_FALSE(plugin_loaded());
  int fake = rt->find_device("fake:0").value();  // a plugin's device: now they load
  CHECK(plugin_loaded());
  CHECK(rt->device_description(fake).value().kind == "gpu");
  CHECK(rt->device_description(1000).status().code() == StatusCode::kInvalidArgument);
}
