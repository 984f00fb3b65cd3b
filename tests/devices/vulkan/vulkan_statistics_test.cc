// PLAIDML_VULKAN_PIPELINE_STATISTICS=1 (set by CTest for this binary): kernels load and run as
// without it, and where the device has VK_KHR_pipeline_executable_properties (NVIDIA; Debian
// 12's lavapipe does not list it) one statistics line per pipeline reaches stderr: both entry
// points of the module or neither. (It does not open a Vulkan instance of its own to ask the
// loader which: that instance left a 128-byte leak inside the loader or a layer, which
// LeakSanitizer reports in the sanitizer build.)
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "vulkan_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// What the calls of `body` write to stderr.
template <typename Body>
std::string stderr_of(Body body) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  int saved = dup(2);
  dup2(fileno(capture), 2);
  body();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(capture);
  char buf[4096];
  while (size_t got = std::fread(buf, 1, sizeof buf, capture)) text.append(buf, got);
  std::fclose(capture);
  return text;
}

}  // namespace

TEST_CASE("vulkan statistics: kernels run as before, statistics where the device has them") {
  constexpr int kN = 1000;  // the element count baked into add_then_twice
  std::vector<float> c;
  std::string log = stderr_of([&] {
    OpenDevice dev;
    auto exe = dev.must_load(spirv_module("add_then_twice"), {"add_one", "twice"});
    std::vector<float> a = ramp(kN);
    auto ba = dev.buffer_with(a);
    auto bb = dev.buffer(kN * 4);
    auto bc = dev.buffer(kN * 4);
    REQUIRE(dev.launch(exe, 0, {(kN + 63) / 64, 1, 1}, {64, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    REQUIRE(dev.launch(exe, 1, {(kN + 31) / 32, 1, 1}, {32, 1, 1}, {ba, bb, bc}) ==
            PLAIDML_PLUGIN_OK);
    c = dev.read<float>(bc, kN);
  });
  std::vector<float> a = ramp(kN);
  for (int i = 0; i < kN; ++i) REQUIRE(c[i] == (a[i] + 1.0f) * 2.0f);
  INFO(log);
  const bool add_one = log.find("plaidml vulkan: ") != std::string::npos &&
                       log.find("'add_one':") != std::string::npos;
  const bool twice = log.find("'twice':") != std::string::npos;
  CHECK(add_one == twice);
  if (add_one) CHECK(log.find("Register Count") != std::string::npos);  // NVIDIA's statistic
}
