// Errors of the Vulkan plugin: VkResult names, the mapping from VkResult to plugin status codes,
// and validation-layer errors (vk_validation.h) turned into a failed call (the scaffold,
// devices/plugin_support, keeps the message and fences exceptions).
#pragma once

#include <string>
#include <utility>

#include "devices/plugin_support/plugin_errors.h"
#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_validation.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// "VK_ERROR_DEVICE_LOST"; unknown codes: "VkResult <n>".
std::string vk_result_name(VkResult result);

// The plugin status a failed vk call maps to (memory exhaustion: OUT_OF_MEMORY).
plaidml_plugin_status status_of(VkResult result);

using plugin_support::fail;

// A failed vkX call: "<function> failed: <VkResult name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_vk(const char* function, VkResult result,
                              const std::string& context = "");

// DEVICE_ERROR with the validation errors reported so far, if any. Calls that create an object
// check this before handing it out, so that a failed call leaks nothing.
plaidml_plugin_status check_validation();

// A call that succeeded while the validation layer reported errors fails with them; a failed
// call gets them appended to its message.
plaidml_plugin_status with_validation_errors(plaidml_plugin_status status);

}  // namespace plaidml::devices::vulkan
