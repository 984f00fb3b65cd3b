// The argument checks every plugin call makes before its driver sees it, each failing with
// the plugin status and message a caller gets from any device.
#pragma once

#include <cstdint>
#include <string>

#include "devices/plugin_support/driver.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::plugin_support {

// INVALID_ARGUMENT "<what> is NULL" when p is NULL.
plaidml_plugin_status require(const void* p, const char* what);

// [offset, offset + bytes) lies inside the buffer, without overflow.
plaidml_plugin_status check_range(const char* what, const Buffer& buffer, uint64_t offset,
                                  uint64_t bytes);

// A copy within one buffer whose ranges overlap.
plaidml_plugin_status check_no_overlap(const Buffer* src, uint64_t src_offset, const Buffer* dst,
                                       uint64_t dst_offset, uint64_t bytes);

// The allocation fits the device's largest (OUT_OF_MEMORY naming both sizes otherwise).
plaidml_plugin_status check_allocation(const DeviceRecord& record, uint64_t bytes);

// format is one of the record's comma-separated artifact_formats (UNSUPPORTED otherwise).
plaidml_plugin_status check_format(const DeviceRecord& record, const char* format);

// A caller's info struct is at least the size of ABI 1's first version.
plaidml_plugin_status check_info_size(const plaidml_plugin_device_info& info);

// The launch info has grid and workgroup, and its kernel indexes the executable.
plaidml_plugin_status check_launch(const plaidml_plugin_launch_info& info,
                                   const Executable& executable);

// Copies a record into the caller's info, up to the caller's struct_size.
void fill_device_info(const DeviceRecord& record, plaidml_plugin_device_info* info);

}  // namespace plaidml::devices::plugin_support
