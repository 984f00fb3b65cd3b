// Enumerating, opening, describing and closing Vulkan devices (plugin vtable entries).
// open_device options: "direct_host_access" = "0" makes write/read go through the staging buffer
// even where buffer memory is host-visible (tests use it to cover the discrete-GPU path);
// "fence_timeout_ms" bounds every wait for the device (default 60000).
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

plaidml_plugin_status device_count(uint32_t* out_count);
plaidml_plugin_status describe_device(uint32_t index, plaidml_plugin_device_info* info);
plaidml_plugin_status open_device(uint32_t index, const plaidml_plugin_option* options,
                                  size_t num_options, plaidml_plugin_device* out_device);
plaidml_plugin_status query_device(plaidml_plugin_device device, plaidml_plugin_device_info* info);
void close_device(plaidml_plugin_device device);

}  // namespace plaidml::devices::vulkan
