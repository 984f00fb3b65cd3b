// Errors of the Vulkan plugin: the thread-local message that last_error() returns, VkResult
// names, the mapping from VkResult to plugin status codes, and guarded(), which also turns
// validation-layer errors (vk_validation.h) into a failed call.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_validation.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

// "VK_ERROR_DEVICE_LOST"; unknown codes: "VkResult <n>".
std::string vk_result_name(VkResult result);

// The plugin status a failed vk call maps to (memory exhaustion: OUT_OF_MEMORY).
plaidml_plugin_status status_of(VkResult result);

// Records `message` for last_error() on this thread and returns `code`.
plaidml_plugin_status fail(plaidml_plugin_status code, std::string message);

// A failed vkX call: "<function> failed: <VkResult name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_vk(const char* function, VkResult result,
                              const std::string& context = "");

const char* last_error();
void clear_error();

// DEVICE_ERROR with the validation errors reported so far, if any. Calls that create an object
// check this before handing it out, so that a failed call leaks nothing.
plaidml_plugin_status check_validation();

// A call that succeeded while the validation layer reported errors fails with them; a failed
// call gets them appended to its message.
plaidml_plugin_status with_validation_errors(plaidml_plugin_status status);

// Runs body (returning a plugin status) with every C++ exception turned into a status: nothing
// may unwind through the C ABI.
template <typename Body>
plaidml_plugin_status guarded(Body&& body) noexcept {
  try {
    clear_error();
    return with_validation_errors(body());
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of host memory in the Vulkan plugin");
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, std::string("Vulkan plugin: ") + e.what());
  } catch (...) {
    return fail(PLAIDML_PLUGIN_INTERNAL, "Vulkan plugin: unknown exception");
  }
}

}  // namespace plaidml::devices::vulkan
