// OpenCL platforms and devices: enumerated once per process (the ICD loader reads its vendor
// list once too), so that describe_device can hand out strings that live as long as the module.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "devices/plugin_support/driver.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

// What describe_device reports, with the OpenCL handles it came from.
struct ClDeviceRecord : plugin_support::DeviceRecord {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_version;  // "OpenCL 3.0 PoCL ..."
};

// Every device of every platform, in platform order. Thread-safe; computed on first use.
const plugin_support::Inventory& inventory();

// The OpenCL API version of the platform ("OpenCL 2.1 ..." -> 201); 0 if unreadable.
int platform_api_version(const ClDeviceRecord& record);

}  // namespace plaidml::devices::opencl
