// Launching hand-written OpenCL C kernels through the plugin: grid and workgroup mapping,
// kernels chained on the in-order queue, launch errors, and launches from several threads.
#include <string>
#include <thread>
#include <vector>

#include "opencl_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

TEST_CASE("opencl launch: vector add over a grid rounded up to the workgroup") {
  OpenDevice dev;
  constexpr int kN = 1000;  // not a multiple of the workgroup: the kernel guards the tail
  std::vector<float> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i + 1);
  }
  auto ba = dev.buffer_with(a), bb = dev.buffer_with(b);
  auto bc = dev.buffer_with(std::vector<float>(kN, -1.0f));
  auto exe = dev.must_load(vadd_source(kN), {"vadd"});
  REQUIRE(dev.launch(exe, 0, {16, 1, 1}, {64, 1, 1}, {ba, bb, bc}) == PLAIDML_PLUGIN_OK);
  REQUIRE(dev.p()->synchronize(dev.get()) == PLAIDML_PLUGIN_OK);
  auto c = dev.read<float>(bc, kN);
  for (int i = 0; i < kN; ++i) {
    INFO("i = " << i);
    REQUIRE(c[i] == float(3 * i + 1));
  }
}

TEST_CASE("opencl launch: grid counts workgroups, workgroup counts threads, per dimension") {
  OpenDevice dev;
  // Each thread writes what OpenCL says its geometry is; the ids cover the global range once.
  std::string source =
      "__kernel void geometry(__global int* out, __global int* dims) {\n"
      "  size_t x = get_global_id(0), y = get_global_id(1);\n"
      "  out[y * get_global_size(0) + x] = (int)(x * 100 + y);\n"
      "  if (x == 0 && y == 0) {\n"
      "    for (int d = 0; d < 3; ++d) {\n"
      "      dims[d] = (int)get_num_groups(d);\n"
      "      dims[3 + d] = (int)get_local_size(d);\n"
      "    }\n"
      "  }\n"
      "}\n";
  auto exe = dev.must_load(source, {"geometry"});
  auto out = dev.buffer_with(std::vector<int>(6 * 4, -1));
  auto dims = dev.buffer_with(std::vector<int>(6, -1));
  REQUIRE(dev.launch(exe, 0, {3, 2, 1}, {2, 2, 1}, {out, dims}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<int>(dims, 6) == std::vector<int>{3, 2, 1, 2, 2, 1});
  auto ids = dev.read<int>(out, 24);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 6; ++x) CHECK(ids[y * 6 + x] == x * 100 + y);
  }
  // An all-zero workgroup: grid is the global size and the driver picks the local size.
  auto out2 = dev.buffer_with(std::vector<int>(5 * 3, -1));
  REQUIRE(dev.launch(exe, 0, {5, 3, 1}, {0, 0, 0}, {out2, dims}) == PLAIDML_PLUGIN_OK);
  ids = dev.read<int>(out2, 15);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) CHECK(ids[y * 5 + x] == x * 100 + y);
  }
}

TEST_CASE("opencl launch: kernels of one program chain without host synchronisation") {
  OpenDevice dev;
  std::string source =
      "__kernel void twice(__global const float* a, __global float* t) {\n"
      "  size_t i = get_global_id(0); t[i] = 2.0f * a[i];\n"
      "}\n"
      "__kernel void plus(__global const float* t, __global const float* a,\n"
      "                   __global float* out) {\n"
      "  size_t i = get_global_id(0); out[i] = t[i] + a[i];\n"
      "}\n"
      "__kernel void inc(__global float* x) { x[get_global_id(0)] += 1.0f; }\n";
  auto exe = dev.must_load(source, {"twice", "plus", "inc"});
  constexpr int kN = 37;
  std::vector<float> a(kN);
  for (int i = 0; i < kN; ++i) a[i] = float(i) - 10.0f;
  auto ba = dev.buffer_with(a), t = dev.buffer(kN * 4), out = dev.buffer(kN * 4);
  REQUIRE(dev.launch(exe, 0, {kN, 1, 1}, {1, 1, 1}, {ba, t}) == PLAIDML_PLUGIN_OK);
  REQUIRE(dev.launch(exe, 1, {kN, 1, 1}, {1, 1, 1}, {t, ba, out}) == PLAIDML_PLUGIN_OK);
  for (int k = 0; k < 50; ++k) {
    REQUIRE(dev.launch(exe, 2, {kN, 1, 1}, {1, 1, 1}, {out}) == PLAIDML_PLUGIN_OK);
  }
  // The blocking read waits for the whole chain on the in-order queue.
  auto result = dev.read<float>(out, kN);
  for (int i = 0; i < kN; ++i) CHECK(result[i] == 3.0f * a[i] + 50.0f);
}

TEST_CASE("opencl launch: a zero grid runs nothing") {
  OpenDevice dev;
  auto exe = dev.must_load(vadd_source(4), {"vadd"});
  auto a = dev.buffer_with(std::vector<float>{1, 2, 3, 4});
  auto c = dev.buffer_with(std::vector<float>{9, 9, 9, 9});
  REQUIRE(dev.launch(exe, 0, {0, 1, 1}, {4, 1, 1}, {a, a, c}) == PLAIDML_PLUGIN_OK);
  CHECK(dev.read<float>(c, 4) == std::vector<float>{9, 9, 9, 9});
}

TEST_CASE("opencl launch: wrong kernel index, argument count or workgroup are reported") {
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  auto exe = dev.must_load(vadd_source(4), {"vadd"});
  auto a = dev.buffer(16);
  CHECK(dev.launch(exe, 1, {1, 1, 1}, {4, 1, 1}, {a, a, a}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "kernel index 1 out of range (the executable has 1 kernels)");
  CHECK(dev.launch(exe, 0, {1, 1, 1}, {4, 1, 1}, {a, a}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "kernel 'vadd' takes 3 arguments, got 2 buffers");
  CHECK(dev.launch(exe, 0, {1, 1, 1}, {4, 0, 1}, {a, a, a}) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "workgroup 4x0x1 has a zero dimension (all zero lets the driver choose)");
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->query_device(dev.get(), &info) == PLAIDML_PLUGIN_OK);
  uint32_t too_many = info.max_workgroup_size * 2;
  CHECK(dev.launch(exe, 0, {1, 1, 1}, {too_many, 1, 1}, {a, a, a}) ==
        PLAIDML_PLUGIN_INVALID_ARGUMENT);
  std::string message = last_error(p);
  INFO(message);
  CHECK(message.rfind("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (-54): "
                      "workgroup " +
                          std::to_string(too_many) +
                          "x1x1: kernel 'vadd' allows "
                          "workgroups of at most ",
                      0) == 0);
}

TEST_CASE("opencl launch: launches from several threads on one device") {
  OpenDevice dev;
  constexpr int kN = 256, kThreads = 4, kRounds = 20;
  auto exe = dev.must_load(vadd_source(kN), {"vadd"});
  std::vector<float> ones(kN, 1.0f);
  auto one = dev.buffer_with(ones);
  std::vector<plaidml_plugin_buffer> acc;
  for (int t = 0; t < kThreads; ++t) acc.push_back(dev.buffer_with(std::vector<float>(kN, 0)));
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        // acc[t] = acc[t] + 1, in place: each thread's launches run in its order.
        if (dev.launch(exe, 0, {kN / 64, 1, 1}, {64, 1, 1}, {acc[t], one, acc[t]}) != 0) {
          ++failures[t];
        }
      }
      if (dev.p()->synchronize(dev.get()) != PLAIDML_PLUGIN_OK) ++failures[t];
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(failures[t] == 0);
    CHECK(dev.read<float>(acc[t], kN) == std::vector<float>(kN, float(kRounds)));
  }
}
