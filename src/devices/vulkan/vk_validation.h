// Validation-layer errors as plugin failures. With VK_LAYER_KHRONOS_validation enabled (CI sets
// VK_INSTANCE_LAYERS), a VK_EXT_debug_utils messenger records every validation error; the plugin
// call during which it was reported, or else the next one, fails with it (vk_errors.h), so that
// a test cannot pass over invalid Vulkan usage.
#pragma once

#include <string>

#include "devices/vulkan/vk_api.h"

namespace plaidml::devices::vulkan {

// Whether the instance should enable VK_EXT_debug_utils: true when the loader offers it
// (globally or through an enabled layer).
bool debug_utils_available();

// Installs the messenger on `instance` (no-op when the extension was not enabled).
void install_validation_messenger(VkInstance instance);

// The recorded messages, joined with "; ", and clears them ("" when none).
std::string take_validation_errors();

}  // namespace plaidml::devices::vulkan
