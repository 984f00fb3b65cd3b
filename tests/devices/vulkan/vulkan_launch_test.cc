// Launching hand-written SPIR-V (spirv/*.spvasm) through the plugin: two kernels of one module
// recorded in one command buffer, ordering against reads and writes and across submits in
// flight, launch errors, modules that are not SPIR-V or do not build, a deliberate validation
// error, late submits, fence polling, and launches from threads.
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr int kN = 1000;  // the element count baked into add_then_twice

std::vector<float> expected_c(const std::vector<float>& a) {
  std::vector<float> c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = (a[i] + 1.0f) * 2.0f;
  return c;
}

}  // namespace

TEST_CASE("vulkan launch: two kernels chained in one submit, c = (a + 1) * 2") {
  for (const char* direct : {"1", "0"}) {
    INFO("direct_host_access = " << direct);
    OpenDevice dev(TestOptions{{"direct_host_access", direct}});
    auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
    std::vector<float> a = ramp(kN);
    auto ba = dev.buffer_with(a);
    auto bb = dev.buffer_with(std::vector<float>(kN, -5.0f));
    auto bc = dev.buffer_with(std::vector<float>(kN, -5.0f));
    // Grids rounded up to each entry's LocalSize (64 and 32); the kernels guard the tail.
    REQUIRE(dev.launch(exe, 0, {(kN + 63) / 64, 1, 1}, {64, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    REQUIRE(dev.launch(exe, 1, {(kN + 31) / 32, 1, 1}, {32, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    REQUIRE(dev.p()->synchronize(dev.get()) == PLAIDML_PLUGIN_OK);
    CHECK(dev.read<float>(bc, kN) == expected_c(a));
    CHECK(dev.read<float>(ba, kN) == a);
  }
}

TEST_CASE("vulkan launch: each kernel binds only the buffers its entry point uses") {
  // add_one uses bindings 0 and 1 of the module's three: two buffers are enough for it.
  OpenDevice dev;
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  std::vector<float> a = ramp(kN);
  auto ba = dev.buffer_with(a);
  auto bb = dev.buffer(kN * 4);
  REQUIRE(dev.launch(exe, 0, {(kN + 63) / 64, 1, 1}, {64, 1, 1}, {ba, bb}) == PLAIDML_PLUGIN_OK);
  auto b = dev.read<float>(bb, kN);
  for (int i = 0; i < kN; ++i) REQUIRE(b[i] == a[i] + 1.0f);
  CHECK(dev.launch(exe, 0, {1, 1, 1}, {64, 1, 1}, {ba}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(dev.p()) == "kernel 'add_one' uses 2 buffer slots, got 1 buffers");
}

TEST_CASE("vulkan launch: an entry point binding more buffers than the device allows is refused") {
  OpenDevice dev;
  plaidml_plugin_executable exe = nullptr;
  // The module declares binding 1048000, but "small" uses only bindings 0 and 1.
  auto small = dev.must_load(spirv_module("wide_binding"), {"small"});
  auto a = dev.buffer_with(std::vector<float>{7.0f});
  auto b = dev.buffer_with(std::vector<float>{0.0f});
  REQUIRE(dev.launch(small, 0, {1, 1, 1}, {1, 1, 1}, {a, b}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<float>(b, 1) == std::vector<float>{7.0f});
  CHECK(dev.load(spirv_module("wide_binding"), {"wide"}, &exe) == PLAIDML_PLUGIN_UNSUPPORTED);
  std::string message = last_error(dev.p());
  INFO(message);
  CHECK(message.rfind("entry point 'wide' binds 1048001 storage buffers; ", 0) == 0);
  CHECK(message.find(" allows ") != std::string::npos);
}

TEST_CASE("vulkan launch: a read runs the recorded launches first, a write waits for them") {
  OpenDevice dev;
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  std::vector<float> a = ramp(kN);
  auto ba = dev.buffer_with(a), bb = dev.buffer(kN * 4), bc = dev.buffer(kN * 4);
  // 50 rounds of the pair on the same buffers: 100 dispatches in one command buffer.
  for (int round = 0; round < 50; ++round) {
    REQUIRE(dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
    REQUIRE(dev.launch(exe, 1, {32, 1, 1}, {32, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
  }
  // No synchronize: the read flushes.
  CHECK(dev.read<float>(bc, kN) == expected_c(a));
  // The launch recorded before a write reads the old a.
  REQUIRE(dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
  std::vector<float> other(kN, 100.0f);
  REQUIRE(dev.p()->write(dev.get(), ba, 0, other.data(), kN * 4) == PLAIDML_PLUGIN_OK);
  auto b = dev.read<float>(bb, kN);
  for (int i = 0; i < kN; ++i) REQUIRE(b[i] == a[i] + 1.0f);
}

namespace {

// x + n through n launches of add_one (out = in + 1) back and forth between x and a second
// buffer: each launch reads what the one before wrote, so any launch that ran out of order,
// or twice, or not at all, shows in the result.
std::vector<float> add_one_chain(OpenDevice& dev, const std::vector<float>& x, int n) {
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  auto ba = dev.buffer_with(x), bb = dev.buffer(kN * 4);
  for (int i = 0; i < n; ++i) {
    auto from = i % 2 ? bb : ba, to = i % 2 ? ba : bb;
    REQUIRE(dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {from, to}) == PLAIDML_PLUGIN_OK);
  }
  return dev.read<float>(n % 2 ? bb : ba, kN);
}

std::vector<float> plus(std::vector<float> v, float d) {
  for (float& e : v) e += d;
  return v;
}

}  // namespace

TEST_CASE("vulkan launch: a long chain of launches spans several submits in flight, in order") {
  // 300 launches: batches of 8, 16, 32, 64, 128 and the rest go to the device while the next
  // is recorded, more than the device keeps in flight at once (vk_commands.h).
  OpenDevice dev;
  std::vector<float> a = ramp(kN);
  CHECK(add_one_chain(dev, a, 300) == plus(a, 300));
  // The next run starts with a small batch again and is as right.
  CHECK(add_one_chain(dev, a, 7) == plus(a, 7));
}

TEST_CASE("vulkan launch: waits that poll their fence first (PLAIDML_VULKAN_FENCE_SPIN_US)") {
  struct Env {
    explicit Env(const char* value) { setenv("PLAIDML_VULKAN_FENCE_SPIN_US", value, 1); }
    ~Env() { unsetenv("PLAIDML_VULKAN_FENCE_SPIN_US"); }
  };
  std::vector<float> a = ramp(kN);
  for (const char* spin : {"0", "500", "100000"}) {
    INFO("spin " << spin << " us");
    Env env(spin);
    OpenDevice dev;
    CHECK(add_one_chain(dev, a, 40) == plus(a, 40));
  }
  Env env("soon");
  const plaidml_plugin* p = vulkan_plugin();
  plaidml_plugin_device dev = nullptr;
  CHECK(p->open_device(0, nullptr, 0, &dev) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(dev == nullptr);
  CHECK(last_error(p) ==
        "PLAIDML_VULKAN_FENCE_SPIN_US must be a number of microseconds up to 10000000, got "
        "'soon'");
}

TEST_CASE("vulkan launch: an artifact of several modules, back to back, loads each kernel") {
  // plaidml's artifacts hold one module per kernel (spirv_codegen.h). Two modules here: the
  // second one's "small" copies a to b, then the first one's "add_one" and "twice" run.
  OpenDevice dev;
  std::vector<uint8_t> both = spirv_module("add_then_twice");
  std::vector<uint8_t> wide = spirv_module("wide_binding");
  both.insert(both.end(), wide.begin(), wide.end());
  auto exe = dev.must_load(both, {"small", "add_one", "twice"});
  std::vector<float> a = ramp(kN);
  auto ba = dev.buffer_with(a), bb = dev.buffer(kN * 4), bc = dev.buffer(kN * 4);
  REQUIRE(dev.launch(exe, 0, {1, 1, 1}, {1, 1, 1}, {ba, bc}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<float>(bc, 1) == std::vector<float>{a[0]});
  REQUIRE(dev.launch(exe, 1, {16, 1, 1}, {64, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
  REQUIRE(dev.launch(exe, 2, {32, 1, 1}, {32, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<float>(bc, kN) == expected_c(a));
  // A second module whose header is cut short is refused before the driver sees it.
  std::vector<uint8_t> cut = spirv_module("add_then_twice");
  cut.insert(cut.end(), wide.begin(), wide.begin() + 12);
  plaidml_plugin_executable none = nullptr;
  CHECK(dev.load(cut, {"add_one"}, &none) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(dev.p()).find("a module header at word") != std::string::npos);
}

TEST_CASE("vulkan launch: a zero grid runs nothing") {
  OpenDevice dev;
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  auto ba = dev.buffer_with(ramp(kN));
  auto bb = dev.buffer_with(std::vector<float>(kN, 9.0f));
  REQUIRE(dev.launch(exe, 0, {0, 1, 1}, {64, 1, 1}, {ba, bb, bb}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<float>(bb, kN) == std::vector<float>(kN, 9.0f));
}

TEST_CASE("vulkan launch: wrong kernel index, buffer count or grid are reported") {
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  auto x = dev.buffer(kN * 4);
  CHECK(dev.launch(exe, 2, {1, 1, 1}, {64, 1, 1}, {x, x, x}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "kernel index 2 out of range (the executable has 2 kernels)");
  CHECK(dev.launch(exe, 1, {1, 1, 1}, {32, 1, 1}, {x, x}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "kernel 'twice' uses 3 buffer slots, got 2 buffers");
  CHECK(dev.launch(exe, 0, {1, 1, 1}, {64, 1, 1}, {x, nullptr, x}) ==
        PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(dev.launch(exe, 0, {UINT32_MAX, 1, 1}, {64, 1, 1}, {x, x, x}) ==
        PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p).find("exceeds") != std::string::npos);
  // More buffers than slots: the extra ones are not bound (no slot uses them).
  auto extra = dev.buffer(4);
  auto ba = dev.buffer_with(ramp(kN)), bb = dev.buffer(kN * 4);
  REQUIRE(dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {ba, bb, bb, extra}) == PLAIDML_PLUGIN_OK);
  auto b = dev.read<float>(bb, kN);
  CHECK(b[999] == ramp(kN)[999] + 1.0f);
}

TEST_CASE("vulkan launch: what is not SPIR-V fails to load, without a crash") {
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  plaidml_plugin_executable exe = nullptr;
  std::vector<uint8_t> garbage(64, 0x5A);
  CHECK(dev.load(garbage, {"add_one"}, &exe) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "not a SPIR-V module (no 0x07230203 magic word at the start)");
  std::vector<uint8_t> good = spirv_module("add_then_twice");
  std::vector<uint8_t> odd(good.begin(), good.end() - 1);
  CHECK(dev.load(odd, {"add_one"}, &exe) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p).find("whole 32-bit words") != std::string::npos);
  // Cut inside the last instruction: its word count runs past the end.
  std::vector<uint8_t> cut(good.begin(), good.end() - 8);
  cut.push_back(0), cut.push_back(0), cut.push_back(9), cut.push_back(0);  // 9-word opcode 0
  CHECK(dev.load(cut, {"add_one"}, &exe) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p).find("runs past the end of the module") != std::string::npos);
  CHECK(dev.load({}, {"add_one"}, &exe) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  // The right bytes under the wrong format, or a symbol the module lacks.
  std::vector<const char*> sym = {"add_one"};
  CHECK(p->load(dev.get(), "opencl-c", good.data(), good.size(), sym.data(), 1, &exe) ==
        PLAIDML_PLUGIN_UNSUPPORTED);
  CHECK(dev.load(good, {"add_one", "thrice"}, &exe) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(last_error(p) ==
        "no GLCompute entry point named 'thrice' in the SPIR-V module (entry points: add_one, "
        "twice)");
  CHECK(exe == nullptr);
  // The device is still fine.
  auto ok = dev.must_load(good, {"twice"});
  CHECK(ok != nullptr);
}

TEST_CASE("vulkan launch: a pipeline that cannot be built is an error with the reason") {
  if (!validation_enabled()) return;  // only the layer checks shared memory before the driver
  OpenDevice dev;
  plaidml_plugin_executable exe = nullptr;
  plaidml_plugin_status s = dev.load(spirv_module("huge_shared"), {"main"}, &exe);
  std::string message = last_error(dev.p());
  INFO(message);
  CHECK(s == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(exe == nullptr);
  CHECK(message.find("validation") != std::string::npos);
  CHECK(message.find("SharedMemorySize") != std::string::npos);
}

TEST_CASE("vulkan launch: a validation-layer error fails the call that caused it") {
  if (!validation_enabled()) return;
  OpenDevice dev;
  // int64_atomics needs shaderBufferInt64Atomics, a feature the plugin never enables.
  plaidml_plugin_executable exe = nullptr;
  plaidml_plugin_status s = dev.load(spirv_module("int64_atomics"), {"main"}, &exe);
  std::string message = last_error(dev.p());
  INFO(message);
  CHECK(s == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(message.find("Vulkan validation error") != std::string::npos);
  CHECK(message.find("Int64Atomics") != std::string::npos);
  // Reported once: the next call is clean.
  uint32_t count = 0;
  CHECK(dev.p()->device_count(&count) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("vulkan launch: launches from several threads on one device") {
  OpenDevice dev;
  constexpr int kThreads = 4, kRounds = 10;
  auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
  std::vector<float> a = ramp(kN);
  std::vector<plaidml_plugin_buffer> as, bs, cs;
  for (int t = 0; t < kThreads; ++t) {
    std::vector<float> at(a);
    for (float& v : at) v += float(t);
    as.push_back(dev.buffer_with(at));
    bs.push_back(dev.buffer(kN * 4));
    cs.push_back(dev.buffer(kN * 4));
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        if (dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {as[t], bs[t], cs[t]}) != 0) ++failures[t];
        if (dev.launch(exe, 1, {32, 1, 1}, {32, 1, 1}, {as[t], bs[t], cs[t]}) != 0) ++failures[t];
      }
      if (dev.p()->synchronize(dev.get()) != PLAIDML_PLUGIN_OK) ++failures[t];
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(failures[t] == 0);
    std::vector<float> at(a);
    for (float& v : at) v += float(t);
    CHECK(dev.read<float>(cs[t], kN) == expected_c(at));
  }
}

namespace {

// The spin kernel on a device opened with a 1 ms fence limit, its buffer x = {0, steps}: 100
// groups of 64 invocations of `steps` steps (60000: about half a second on lavapipe), launched
// with `work` as the launch's estimate of its operations.
struct SpinOnShortLimit {
  const plaidml_plugin* p = vulkan_plugin();
  plaidml_plugin_device dev = nullptr;
  plaidml_plugin_executable exe = nullptr;
  plaidml_plugin_buffer x = nullptr;
  plaidml_plugin_launch_info info{};

  explicit SpinOnShortLimit(double work, uint32_t steps = 60000) {
    auto exe_bytes = spirv_module("spin");
    plaidml_plugin_option limit = {"fence_timeout_ms", "1"};
    REQUIRE(p->open_device(0, &limit, 1, &dev) == PLAIDML_PLUGIN_OK);
    const char* symbol = "main";
    REQUIRE(p->load(dev, "spirv", exe_bytes.data(), exe_bytes.size(), &symbol, 1, &exe) ==
            PLAIDML_PLUGIN_OK);
    REQUIRE(p->allocate(dev, 8, &x) == PLAIDML_PLUGIN_OK);
    const uint32_t init[2] = {0, steps};
    REQUIRE(p->write(dev, x, 0, init, 8) == PLAIDML_PLUGIN_OK);
    info.struct_size = sizeof(info);
    info.work = work;
    info.grid[0] = 100;
    info.grid[1] = info.grid[2] = 1;
    REQUIRE(p->launch(dev, exe, &info, &x, 1) == PLAIDML_PLUGIN_OK);
  }
  // Neither these nor closing submit a timed-out command buffer again (the validation layer
  // would report it in use, which close_checked sees).
  ~SpinOnShortLimit() {
    p->unload(dev, exe);
    p->free_buffer(dev, x);
    close_checked(p, dev);
  }
};

uint32_t spin_result(int steps) {
  uint32_t acc = 0;
  for (int i = 0; i < steps; ++i) acc = acc * 1664525u + 1013904223u;
  return acc;
}

}  // namespace

TEST_CASE("vulkan launch: a submit that outlasts the fence time limit is an error, not a hang") {
  {
    // The kernel computes what the host computes, for a short run.
    OpenDevice dev;
    auto exe = dev.must_load(spirv_module("spin"), {"main"});
    auto x = dev.buffer_with(std::vector<uint32_t>{0, 1000});
    REQUIRE(dev.launch(exe, 0, {1, 1, 1}, {64, 1, 1}, {x}) == PLAIDML_PLUGIN_OK);
    CHECK(dev.read<uint32_t>(x, 1)[0] == spin_result(1000));
  }
  // A launch that says nothing of its work gets the 1 ms limit: the device is then unusable
  // and says so; closing it waits for the submit, briefly.
  SpinOnShortLimit spin(0);
  const plaidml_plugin* p = spin.p;
  CHECK(p->synchronize(spin.dev) == PLAIDML_PLUGIN_DEVICE_ERROR);
  std::string message = last_error(p);
  CHECK(message.find("running kernel 'main' did not finish within 1 ms") != std::string::npos);
  CHECK(p->launch(spin.dev, spin.exe, &spin.info, &spin.x, 1) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(last_error(p) == message);
}

TEST_CASE("vulkan launch: a late submit of several launches names the first three and the last") {
  // Five launches of 3000 steps (tens of ms on lavapipe) in one submit, against 1 ms.
  SpinOnShortLimit spin(0, 3000);
  const plaidml_plugin* p = spin.p;
  for (int i = 0; i < 4; ++i) {
    REQUIRE(p->launch(spin.dev, spin.exe, &spin.info, &spin.x, 1) == PLAIDML_PLUGIN_OK);
  }
  CHECK(p->synchronize(spin.dev) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(last_error(p).find("running kernels 'main', 'main', 'main', ..., 'main' (5 in all) did "
                           "not finish within 1 ms") != std::string::npos);
}

TEST_CASE("vulkan launch: a late submit among several in flight names its own kernels") {
  // Twenty launches against 1 ms: the first eight went to the device as one batch while the
  // others were recorded; the wait for those eight runs out. Closing then waits for both batches.
  SpinOnShortLimit spin(0, 3000);
  const plaidml_plugin* p = spin.p;
  for (int i = 0; i < 19; ++i) {
    REQUIRE(p->launch(spin.dev, spin.exe, &spin.info, &spin.x, 1) == PLAIDML_PLUGIN_OK);
  }
  CHECK(p->synchronize(spin.dev) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(last_error(p).find("a submit of 8 commands running kernels 'main', 'main', 'main', ..., "
                           "'main' (8 in all) did not finish within 1 ms") != std::string::npos);
}

TEST_CASE("vulkan launch: a long submit gets time in proportion to its work: slow is not hung") {
  // The same spin, but the launch says how much work it is: 1e8 operations buy 2 s at the
  // slowest rate the wait allows (vk_commands.h), so the submit finishes and its result is right.
  SpinOnShortLimit spin(1e8);
  const plaidml_plugin* p = spin.p;
  CHECK(p->synchronize(spin.dev) == PLAIDML_PLUGIN_OK);
  uint32_t got = 0;
  REQUIRE(p->read(spin.dev, spin.x, 0, &got, 4) == PLAIDML_PLUGIN_OK);
  CHECK(got == spin_result(60000));
}
