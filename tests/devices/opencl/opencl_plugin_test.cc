// The OpenCL plugin's vtable: enumeration and description (checked against direct OpenCL
// queries), buffers, and loading OpenCL C artifacts, including every load failure.
#include <CL/cl.h>

#include <cstring>
#include <string>
#include <vector>

#include "opencl_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// The first device of the first platform, straight from OpenCL: the oracle for describe.
cl_device_id first_cl_device() {
  cl_platform_id platform = nullptr;
  REQUIRE(clGetPlatformIDs(1, &platform, nullptr) == CL_SUCCESS);
  cl_device_id device = nullptr;
  REQUIRE(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS);
  return device;
}

std::string cl_device_string(cl_device_id d, cl_device_info what) {
  char buf[4096] = {};
  REQUIRE(clGetDeviceInfo(d, what, sizeof(buf) - 1, buf, nullptr) == CL_SUCCESS);
  return buf;
}

template <typename T>
T cl_device_value(cl_device_id d, cl_device_info what) {
  T v{};
  REQUIRE(clGetDeviceInfo(d, what, sizeof(v), &v, nullptr) == CL_SUCCESS);
  return v;
}

}  // namespace

TEST_CASE("opencl plugin: enumerates and describes devices as OpenCL reports them") {
  const plaidml_plugin* p = opencl_plugin();
  CHECK(std::string(p->name) == "opencl");
  uint32_t count = 0;
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  REQUIRE(count >= 1);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);
  cl_device_id d = first_cl_device();
  CHECK(std::string(info.name) == cl_device_string(d, CL_DEVICE_NAME));
  CHECK(std::string(info.vendor) == cl_device_string(d, CL_DEVICE_VENDOR));
  auto type = cl_device_value<cl_device_type>(d, CL_DEVICE_TYPE);
  CHECK(std::string(info.kind) == ((type & CL_DEVICE_TYPE_GPU)   ? "gpu"
                                   : (type & CL_DEVICE_TYPE_CPU) ? "cpu"
                                                                 : "accelerator"));
  CHECK(std::string(info.artifact_formats) == "opencl-c");
  CHECK(info.memory_bytes == cl_device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
  CHECK(info.max_allocation_bytes == cl_device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  CHECK(info.local_memory_bytes == cl_device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE));
  CHECK(info.max_workgroup_size == cl_device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  CHECK(info.compute_units == cl_device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  std::string ext = " " + cl_device_string(d, CL_DEVICE_EXTENSIONS) + " ";
  CHECK(bool(info.flags & PLAIDML_PLUGIN_DEVICE_FP16) == (ext.find(" cl_khr_fp16 ") != ext.npos));
  CHECK(bool(info.flags & PLAIDML_PLUGIN_DEVICE_FP64) == (ext.find(" cl_khr_fp64 ") != ext.npos));
  // target: "<platform>|<device>|<driver version>".
  std::string target = info.target;
  CHECK(target.find("|" + cl_device_string(d, CL_DEVICE_NAME) + "|" +
                    cl_device_string(d, CL_DRIVER_VERSION)) != std::string::npos);
}

TEST_CASE("opencl plugin: a short caller struct is filled only up to its size") {
  const plaidml_plugin* p = opencl_plugin();
  plaidml_plugin_device_info info{};
  std::memset(&info, 0xAB, sizeof(info));
  info.struct_size = offsetof(plaidml_plugin_device_info, memory_bytes);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);
  CHECK(std::string(info.artifact_formats) == "opencl-c");
  CHECK(info.memory_bytes == 0xABABABABABABABABull);
}

TEST_CASE("opencl plugin: a device index past the end is not found") {
  const plaidml_plugin* p = opencl_plugin();
  uint32_t count = 0;
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  CHECK(p->describe_device(count, &info) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(last_error(p) ==
        "no OpenCL device " + std::to_string(count) + " (there are " + std::to_string(count) + ")");
  plaidml_plugin_device dev = nullptr;
  CHECK(p->open_device(count, nullptr, 0, &dev) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(dev == nullptr);
}

TEST_CASE("opencl plugin: buffers round-trip with offsets, copies and empty buffers") {
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  auto a = dev.buffer(64);
  std::vector<uint8_t> bytes(64);
  for (int i = 0; i < 64; ++i) bytes[i] = uint8_t(i);
  REQUIRE(p->write(dev.get(), a, 0, bytes.data(), 64) == PLAIDML_PLUGIN_OK);
  uint8_t patch[4] = {200, 201, 202, 203};
  REQUIRE(p->write(dev.get(), a, 10, patch, 4) == PLAIDML_PLUGIN_OK);
  uint8_t part[8] = {};
  REQUIRE(p->read(dev.get(), a, 8, part, 8) == PLAIDML_PLUGIN_OK);
  CHECK(std::vector<uint8_t>(part, part + 8) ==
        std::vector<uint8_t>{8, 9, 200, 201, 202, 203, 14, 15});
  // Device -> device, between buffers and within one (disjoint ranges).
  auto b = dev.buffer(32);
  REQUIRE(p->copy(dev.get(), a, 10, b, 4, 6) == PLAIDML_PLUGIN_OK);
  REQUIRE(p->read(dev.get(), b, 4, part, 6) == PLAIDML_PLUGIN_OK);
  CHECK(std::vector<uint8_t>(part, part + 6) == std::vector<uint8_t>{200, 201, 202, 203, 14, 15});
  REQUIRE(p->copy(dev.get(), a, 0, a, 60, 4) == PLAIDML_PLUGIN_OK);
  REQUIRE(p->read(dev.get(), a, 58, part, 6) == PLAIDML_PLUGIN_OK);
  CHECK(std::vector<uint8_t>(part, part + 6) == std::vector<uint8_t>{58, 59, 0, 1, 2, 3});
  // A 0-byte buffer exists and moves 0 bytes.
  auto empty = dev.buffer(0);
  CHECK(p->write(dev.get(), empty, 0, nullptr, 0) == PLAIDML_PLUGIN_OK);
  CHECK(p->read(dev.get(), empty, 0, nullptr, 0) == PLAIDML_PLUGIN_OK);
}

TEST_CASE("opencl plugin: out-of-range and overlapping transfers are invalid arguments") {
  OpenDevice dev;
  const plaidml_plugin* p = dev.p();
  auto a = dev.buffer(16);
  uint8_t data[16] = {};
  CHECK(p->read(dev.get(), a, 8, data, 9) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) == "read of 9 bytes at offset 8 is outside the buffer of 16 bytes");
  CHECK(p->write(dev.get(), a, UINT64_MAX, data, 2) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) ==
        "write of 2 bytes at offset 18446744073709551615 is outside the buffer of 16 bytes");
  CHECK(p->copy(dev.get(), a, 0, a, 4, 8) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) ==
        "copy within one buffer with overlapping ranges (8 bytes from offset 0 to 4)");
  auto b = dev.buffer(4);
  CHECK(p->copy(dev.get(), a, 0, b, 0, 8) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(last_error(p) ==
        "copy destination of 8 bytes at offset 0 is outside the buffer of 4 bytes");
}

TEST_CASE("opencl plugin: an allocation beyond the device's largest is out of memory") {
  OpenDevice dev;
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(dev.p()->query_device(dev.get(), &info) == PLAIDML_PLUGIN_OK);
  plaidml_plugin_buffer b = nullptr;
  uint64_t too_big = info.max_allocation_bytes + 1;
  CHECK(dev.p()->allocate(dev.get(), too_big, &b) == PLAIDML_PLUGIN_OUT_OF_MEMORY);
  CHECK(b == nullptr);
  CHECK(last_error(dev.p()) == "cannot allocate " + std::to_string(too_big) + " bytes on " +
                                   info.name + ": its largest allocation is " +
                                   std::to_string(info.max_allocation_bytes) + " bytes");
}

TEST_CASE("opencl plugin: a build failure returns the compiler's build log") {
  OpenDevice dev;
  plaidml_plugin_executable exe = nullptr;
  std::string source = "__kernel void broken(__global float* x) { x[0] = undefined_thing; }\n";
  CHECK(dev.load(source, {"broken"}, &exe) == PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(exe == nullptr);
  std::string message = last_error(dev.p());
  INFO(message);
  CHECK(message.rfind("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11): OpenCL C build for '",
                      0) == 0);
  CHECK(message.find("failed, build log:\n") != std::string::npos);
  CHECK(message.find("undefined_thing") != std::string::npos);  // from the compiler's log
}

TEST_CASE("opencl plugin: a missing kernel symbol is not found and names the kernels") {
  OpenDevice dev;
  plaidml_plugin_executable exe = nullptr;
  CHECK(dev.load(vadd_source(4), {"vadd", "vsub"}, &exe) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(last_error(dev.p()) == "no kernel named 'vsub' in the OpenCL program (kernels: vadd)");
}

TEST_CASE("opencl plugin: another artifact format is unsupported") {
  OpenDevice dev;
  plaidml_plugin_executable exe = nullptr;
  const char* symbol = "k";
  CHECK(dev.p()->load(dev.get(), "spirv", "x", 1, &symbol, 1, &exe) == PLAIDML_PLUGIN_UNSUPPORTED);
  CHECK(last_error(dev.p()) ==
        "artifact format 'spirv' is not supported by the OpenCL device (it accepts opencl-c)");
}

TEST_CASE("opencl plugin: half precision needs cl_khr_fp16") {
  OpenDevice dev;
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(dev.p()->query_device(dev.get(), &info) == PLAIDML_PLUGIN_OK);
  std::string source =
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "__kernel void h(__global half* x) { x[get_global_id(0)] *= (half)2; }\n";
  plaidml_plugin_executable exe = nullptr;
  plaidml_plugin_status s = dev.load(source, {"h"}, &exe);
  if (info.flags & PLAIDML_PLUGIN_DEVICE_FP16) {
    CHECK(s == PLAIDML_PLUGIN_OK);
  } else {
    CHECK(s == PLAIDML_PLUGIN_UNSUPPORTED);
    CHECK(last_error(dev.p()) == std::string("the kernel uses half (f16) (cl_khr_fp16), which "
                                             "OpenCL device '") +
                                     info.name + "' does not support");
  }
}
