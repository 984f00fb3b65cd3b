// The OpenCL plugin's vtable beyond the plugin-ABI suite (tests/devices/plugin_abi, which
// checks buffers, ranges, handles and formats on every plugin): enumeration and description
// checked against direct OpenCL queries, and the OpenCL C load failures.
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
