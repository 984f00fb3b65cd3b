// Kernel launches and synchronisation (plugin vtable entries). A launch is recorded into the
// device's command batch (bind pipeline, descriptor set of the buffers, dispatch, barrier);
// synchronize submits the batch once and waits for it.
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable executable,
                             const plaidml_plugin_launch_info* launch,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers);
plaidml_plugin_status synchronize(plaidml_plugin_device device);

}  // namespace plaidml::devices::vulkan
