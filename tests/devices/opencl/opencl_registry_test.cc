// The OpenCL plugin as plaidml finds it: listed by the registry, driven through
// devices::Device, and reached by jit::Runtime (which cannot compile Tile programs for OpenCL
// yet and says so). This program links plaidml statically, so PLAIDML_PLUGIN_PATH names the
// module's directory; opencl_capi_test.cc checks that libplaidml.so finds it on its own.
#include <cstring>
#include <string>
#include <vector>

#include "core/parse/parse.h"
#include "devices/device.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"
#include "opencl_test_util.h"

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

TEST_CASE("opencl registry: PLAIDML_PLUGIN_PATH lists opencl:0 after cpu:0") {
  setenv("PLAIDML_PLUGIN_PATH", PLAIDML_TEST_OPENCL_DIR, 1);
  auto list = devices::list_devices();
  unsetenv("PLAIDML_PLUGIN_PATH");
  REQUIRE(list.size() >= 2);
  CHECK(list[0].id == "cpu:0");
  const devices::DeviceEntry* cl = find(list, "opencl:0");
  REQUIRE(cl != nullptr);
  INFO(cl->unavailable_reason);
  CHECK(cl->available);
  CHECK(cl->module_path == std::string(PLAIDML_TEST_OPENCL_DIR) + "/libplaidml_device_opencl.so");
  CHECK(cl->info.formats == std::vector<std::string>{"opencl-c"});
  CHECK(cl->info.memory_bytes > 0);
  CHECK(cl->info.max_workgroup_size >= 1);
}

TEST_CASE("opencl registry: devices::Device loads and launches OpenCL C") {
  auto list = devices::list_devices({PLAIDML_TEST_OPENCL_DIR});
  const devices::DeviceEntry* cl = find(list, "opencl:0");
  REQUIRE(cl != nullptr);
  auto dev = devices::open_device(*cl, {});
  INFO(dev.status().message());
  REQUIRE(dev.has_value());
  devices::Device& d = **dev;
  CHECK(d.id() == "opencl:0");
  std::string source = vadd_source(10);
  auto exe = d.load("opencl-c", std::vector<uint8_t>(source.begin(), source.end()), {"vadd"});
  INFO(exe.status().message());
  REQUIRE(exe.has_value());
  std::vector<float> a(10), b(10), c(10, 0);
  for (int i = 0; i < 10; ++i) {
    a[i] = float(i);
    b[i] = 0.5f;
  }
  auto ba = d.allocate(40), bb = d.allocate(40), bc = d.allocate(40);
  REQUIRE((ba.has_value() && bb.has_value() && bc.has_value()));
  REQUIRE(d.write(**ba, 0, a.data(), 40).is_ok());
  REQUIRE(d.write(**bb, 0, b.data(), 40).is_ok());
  devices::LaunchParams params;
  params.grid = {3, 1, 1};
  params.workgroup = {4, 1, 1};
  REQUIRE(d.launch(**exe, params, {ba->get(), bb->get(), bc->get()}).is_ok());
  REQUIRE(d.synchronize().is_ok());
  REQUIRE(d.read(**bc, 0, c.data(), 40).is_ok());
  for (int i = 0; i < 10; ++i) CHECK(c[i] == float(i) + 0.5f);
  // A failed build reaches the caller as a device error with the log.
  std::string bad = "__kernel void k(__global int* x) { x[0] = nope; }";
  auto failed = d.load("opencl-c", std::vector<uint8_t>(bad.begin(), bad.end()), {"k"});
  CHECK(failed.status().code() == StatusCode::kDeviceError);
  CHECK(failed.status().message().find("nope") != std::string::npos);
}

TEST_CASE("opencl registry: the runtime compiles Tile for opencl:0 and runs it there") {
  setenv("PLAIDML_PLUGIN_PATH", PLAIDML_TEST_OPENCL_DIR, 1);
  auto rt = jit::Runtime::create({});
  unsetenv("PLAIDML_PLUGIN_PATH");
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  auto index = (*rt)->find_device("opencl:0");
  INFO(index.status().message());
  REQUIRE(index.has_value());
  CHECK((*rt)->find_device("").value() == (*rt)->find_device("cpu:0").value());
  auto program = parse::parse_tile("function (A[N]) -> (B) { B = A * 2 + 1; }", "test");
  REQUIRE(program.has_value());
  auto plan = (*rt)->prepare(*program, {{DType::F32, {4}}}, *index);
  INFO(plan.status().message());
  REQUIRE(plan.has_value());
  CHECK((*plan)->device() == *index);
  auto a = (*rt)->allocate(*index, {DType::F32, {4}});
  REQUIRE(a.has_value());
  std::vector<float> a_values = {1.0f, -2.5f, 0.0f, 8.0f}, b_values(4);
  REQUIRE((*rt)->write(**a, a_values.data(), 16).is_ok());
  std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>> outputs;
  Status ran = jit::run_by_name(**rt, *program, *index, {{"A", *a}}, &outputs);
  INFO(ran.message());
  REQUIRE(ran.is_ok());
  REQUIRE(outputs.size() == 1);
  REQUIRE((*rt)->read(*outputs[0].second, b_values.data(), 16).is_ok());
  CHECK(b_values == std::vector<float>{3.0f, -4.0f, 1.0f, 17.0f});
  // Buffers on the OpenCL device still work through the runtime.
  auto buffer = (*rt)->allocate(*index, {DType::F32, {3}});
  REQUIRE(buffer.has_value());
  std::vector<float> in = {1.5f, -2.0f, 4.0f}, out(3);
  REQUIRE((*rt)->write(**buffer, in.data(), 12).is_ok());
  REQUIRE((*rt)->read(**buffer, out.data(), 12).is_ok());
  CHECK(out == in);
}
