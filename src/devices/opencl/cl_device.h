// Opening, describing and closing OpenCL devices (plugin vtable entries).
#pragma once

#include "devices/opencl/cl_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

plaidml_plugin_status device_count(uint32_t* out_count);
plaidml_plugin_status describe_device(uint32_t index, plaidml_plugin_device_info* info);
plaidml_plugin_status open_device(uint32_t index, const plaidml_plugin_option* options,
                                  size_t num_options, plaidml_plugin_device* out_device);
plaidml_plugin_status query_device(plaidml_plugin_device device, plaidml_plugin_device_info* info);
void close_device(plaidml_plugin_device device);

}  // namespace plaidml::devices::opencl
