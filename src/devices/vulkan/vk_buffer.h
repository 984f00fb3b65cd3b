// Device buffers and host <-> device copies (plugin vtable entries). Buffers live in device-local
// memory; write/read map it where it is host-visible and otherwise copy through the device's
// staging buffer in chunks. Both first run the recorded launches, so they see (and do not
// disturb) the work issued before them; copy is recorded among the launches.
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

plaidml_plugin_status allocate(plaidml_plugin_device device, uint64_t bytes,
                               plaidml_plugin_buffer* out_buffer);
void free_buffer(plaidml_plugin_device device, plaidml_plugin_buffer buffer);
plaidml_plugin_status write(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                            uint64_t offset, const void* data, uint64_t bytes);
plaidml_plugin_status read(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                           uint64_t offset, void* data, uint64_t bytes);
plaidml_plugin_status copy(plaidml_plugin_device device, plaidml_plugin_buffer src,
                           uint64_t src_offset, plaidml_plugin_buffer dst, uint64_t dst_offset,
                           uint64_t bytes);

}  // namespace plaidml::devices::vulkan
