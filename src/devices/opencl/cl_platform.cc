#include "devices/opencl/cl_platform.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "devices/opencl/cl_errors.h"

namespace plaidml::devices::opencl {
namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetPlatformInfo(p, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetDeviceInfo(d, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(d, what, sizeof(value), &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

bool has_extension(const std::string& extensions, const char* name) {
  size_t pos = 0;
  const size_t n = std::strlen(name);
  while ((pos = extensions.find(name, pos)) != std::string::npos) {
    bool starts = pos == 0 || extensions[pos - 1] == ' ';
    bool ends = pos + n == extensions.size() || extensions[pos + n] == ' ';
    if (starts && ends) return true;
    pos += n;
  }
  return false;
}

const char* kind_of(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  return "accelerator";
}

std::unique_ptr<ClDeviceRecord> describe(cl_platform_id platform, cl_device_id device) {
  auto record = std::make_unique<ClDeviceRecord>();
  ClDeviceRecord& r = *record;
  r.platform = platform;
  r.device = device;
  r.name = device_string(device, CL_DEVICE_NAME);
  r.vendor = device_string(device, CL_DEVICE_VENDOR);
  r.kind = kind_of(device_value<cl_device_type>(device, CL_DEVICE_TYPE));
  r.artifact_formats = "opencl-c";
  r.target = platform_string(platform, CL_PLATFORM_NAME) + "|" + r.name + "|" +
             device_string(device, CL_DRIVER_VERSION);
  r.platform_version = platform_string(platform, CL_PLATFORM_VERSION);
  r.memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  r.max_allocation_bytes = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  r.local_memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  r.max_workgroup_size = static_cast<uint32_t>(
      std::max<size_t>(1, device_value<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE)));
  r.compute_units =
      std::max<cl_uint>(1, device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS));
  // Native float vector width in lanes: 16 on AVX-512 CPUs, 1 on NVIDIA (scalar per thread).
  r.vector_bits =
      32 * std::max<cl_uint>(1, device_value<cl_uint>(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT));
  std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  if (has_extension(extensions, "cl_khr_fp16")) r.flags |= PLAIDML_PLUGIN_DEVICE_FP16;
  if (has_extension(extensions, "cl_khr_fp64") ||
      device_value<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0) {
    r.flags |= PLAIDML_PLUGIN_DEVICE_FP64;
  }
  if (device_value<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY)) {
    r.flags |= PLAIDML_PLUGIN_DEVICE_UNIFIED_MEMORY;
  }
  return record;
}

std::string no_platform_message() {
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  return std::string("no OpenCL platform found (is an ICD installed? OCL_ICD_VENDORS=") +
         (vendors ? vendors : "<unset>, so /etc/OpenCL/vendors") + ")";
}

plugin_support::Inventory enumerate() {
  plugin_support::Inventory inv;
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &count);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && count == 0)) {
    inv.status = PLAIDML_PLUGIN_NOT_FOUND;
    inv.why_absent = no_platform_message();
    return inv;
  }
  if (err != CL_SUCCESS) {
    inv.status = PLAIDML_PLUGIN_DEVICE_ERROR;
    inv.why_absent =
        "clGetPlatformIDs failed: " + cl_error_name(err) + " (" + std::to_string(err) + ")";
    return inv;
  }
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  std::string empty_platforms;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) {
      empty_platforms +=
          (empty_platforms.empty() ? "" : ", ") + platform_string(p, CL_PLATFORM_NAME);
      continue;
    }
    std::vector<cl_device_id> ids(n);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : ids) inv.devices.push_back(describe(p, d));
  }
  if (inv.devices.empty()) {
    inv.status = PLAIDML_PLUGIN_NOT_FOUND;
    inv.why_absent = "the OpenCL platforms found have no devices: " + empty_platforms;
  }
  return inv;
}

}  // namespace

const plugin_support::Inventory& inventory() {
  // A function-local static: initialised once even when several threads ask at once.
  static const plugin_support::Inventory inv = enumerate();
  return inv;
}

int platform_api_version(const ClDeviceRecord& record) {
  int major = 0, minor = 0;
  if (std::sscanf(record.platform_version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 0;
  return major * 100 + minor;
}

}  // namespace plaidml::devices::opencl
