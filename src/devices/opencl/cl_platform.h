// OpenCL platforms and devices: enumerated once per process (the ICD loader reads its vendor
// list once too), so that describe_device can hand out strings that live as long as the module.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

struct ClDeviceRecord {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string name;
  std::string vendor;
  std::string kind;              // "gpu", "cpu", "accelerator"
  std::string target;            // "<platform>|<device>|<driver version>"
  std::string platform_version;  // "OpenCL 3.0 PoCL ..."
  uint64_t memory_bytes = 0;
  uint64_t max_allocation_bytes = 0;
  uint64_t local_memory_bytes = 0;
  uint32_t max_workgroup_size = 1;
  uint32_t compute_units = 1;
  uint32_t vector_bits = 32;
  uint32_t flags = 0;  // PLAIDML_PLUGIN_DEVICE_*
};

struct ClInventory {
  plaidml_plugin_status status = PLAIDML_PLUGIN_OK;
  std::string error;  // why there are no devices, when status is not OK
  std::vector<ClDeviceRecord> devices;
};

// Every device of every platform, in platform order. Thread-safe; computed on first use.
const ClInventory& inventory();

// The record of device `index`, or a NOT_FOUND / no-platform failure (message recorded).
plaidml_plugin_status find_device(uint32_t index, const ClDeviceRecord** out);

// Copies a record into the caller's info, up to the caller's struct_size.
void fill_device_info(const ClDeviceRecord& record, plaidml_plugin_device_info* info);

// The OpenCL API version of the platform ("OpenCL 2.1 ..." -> 201); 0 if unreadable.
int platform_api_version(const ClDeviceRecord& record);

}  // namespace plaidml::devices::opencl
