// Kernel launches and synchronisation (plugin vtable entries).
#pragma once

#include "devices/opencl/cl_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable executable,
                             const plaidml_plugin_launch_info* launch,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers);
plaidml_plugin_status synchronize(plaidml_plugin_device device);

}  // namespace plaidml::devices::opencl
