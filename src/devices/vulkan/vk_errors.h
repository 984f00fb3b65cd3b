// Errors of the Vulkan plugin: the thread-local message that last_error() returns, VkResult
// names, the mapping from VkResult to plugin status codes, and guarded(), which also turns
// validation-layer errors (vk_validation.h) into a failed call.
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

using plugin_support::clear_error;
using plugin_support::fail;
using plugin_support::last_error;

// A failed vkX call: "<function> failed: <VkResult name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_vk(const char* function, VkResult result,
                              const std::string& context = "");

// DEVICE_ERROR with the validation errors reported so far, if any. Calls that create an object
// check this before handing it out, so that a failed call leaks nothing.
plaidml_plugin_status check_validation();

// A call that succeeded while the validation layer reported errors fails with them; a failed
// call gets them appended to its message.
plaidml_plugin_status with_validation_errors(plaidml_plugin_status status);

// Runs body (returning a plugin status) with every C++ exception turned into a status, and
// validation errors reported meanwhile into a failed call.
template <typename Body>
plaidml_plugin_status guarded(Body&& body) noexcept {
  return plugin_support::guarded("Vulkan plugin", [&] { return with_validation_errors(body()); });
}

}  // namespace plaidml::devices::vulkan
