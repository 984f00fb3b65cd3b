// The plugin's C entry point: the vtable over the Vulkan device, buffer, program and launch
// layers. The only symbol this module exports.
#include "devices/vulkan/vk_buffer.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_launch.h"
#include "devices/vulkan/vk_program.h"

namespace plaidml::devices::vulkan {
namespace {

const plaidml_plugin kPlugin = {
    PLAIDML_PLUGIN_ABI_VERSION,
    sizeof(plaidml_plugin),
    "vulkan",
    last_error,
    device_count,
    describe_device,
    open_device,
    query_device,
    close_device,
    allocate,
    free_buffer,
    write,
    read,
    copy,
    load,
    unload,
    launch,
    synchronize,
    nullptr,  // wrap_host: kernels reach device memory only
};

}  // namespace
}  // namespace plaidml::devices::vulkan

extern "C" __attribute__((visibility("default"))) const plaidml_plugin* plaidml_plugin_get_v1(
    void) {
  return &plaidml::devices::vulkan::kPlugin;
}
