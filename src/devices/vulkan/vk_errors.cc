#include "devices/vulkan/vk_errors.h"

#include <utility>

namespace plaidml::devices::vulkan {
namespace {

struct ResultName {
  VkResult result;
  const char* name;
};

constexpr ResultName kResultNames[] = {
    {VK_NOT_READY, "VK_NOT_READY"},
    {VK_TIMEOUT, "VK_TIMEOUT"},
    {VK_INCOMPLETE, "VK_INCOMPLETE"},
    {VK_ERROR_OUT_OF_HOST_MEMORY, "VK_ERROR_OUT_OF_HOST_MEMORY"},
    {VK_ERROR_OUT_OF_DEVICE_MEMORY, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
    {VK_ERROR_INITIALIZATION_FAILED, "VK_ERROR_INITIALIZATION_FAILED"},
    {VK_ERROR_DEVICE_LOST, "VK_ERROR_DEVICE_LOST"},
    {VK_ERROR_MEMORY_MAP_FAILED, "VK_ERROR_MEMORY_MAP_FAILED"},
    {VK_ERROR_LAYER_NOT_PRESENT, "VK_ERROR_LAYER_NOT_PRESENT"},
    {VK_ERROR_EXTENSION_NOT_PRESENT, "VK_ERROR_EXTENSION_NOT_PRESENT"},
    {VK_ERROR_FEATURE_NOT_PRESENT, "VK_ERROR_FEATURE_NOT_PRESENT"},
    {VK_ERROR_INCOMPATIBLE_DRIVER, "VK_ERROR_INCOMPATIBLE_DRIVER"},
    {VK_ERROR_TOO_MANY_OBJECTS, "VK_ERROR_TOO_MANY_OBJECTS"},
    {VK_ERROR_FORMAT_NOT_SUPPORTED, "VK_ERROR_FORMAT_NOT_SUPPORTED"},
    {VK_ERROR_FRAGMENTED_POOL, "VK_ERROR_FRAGMENTED_POOL"},
    {VK_ERROR_UNKNOWN, "VK_ERROR_UNKNOWN"},
    {VK_ERROR_OUT_OF_POOL_MEMORY, "VK_ERROR_OUT_OF_POOL_MEMORY"},
    {VK_ERROR_INVALID_EXTERNAL_HANDLE, "VK_ERROR_INVALID_EXTERNAL_HANDLE"},
    {VK_ERROR_FRAGMENTATION, "VK_ERROR_FRAGMENTATION"},
    {VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS, "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS"},
    {VK_PIPELINE_COMPILE_REQUIRED, "VK_PIPELINE_COMPILE_REQUIRED"},
    {VK_ERROR_VALIDATION_FAILED_EXT, "VK_ERROR_VALIDATION_FAILED_EXT"},
    {VK_ERROR_INVALID_SHADER_NV, "VK_ERROR_INVALID_SHADER_NV"},
};

}  // namespace

std::string vk_result_name(VkResult result) {
  for (const ResultName& n : kResultNames) {
    if (n.result == result) return n.name;
  }
  return "VkResult " + std::to_string(static_cast<int>(result));
}

plaidml_plugin_status status_of(VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return PLAIDML_PLUGIN_OK;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
    case VK_ERROR_FRAGMENTATION:
      return PLAIDML_PLUGIN_OUT_OF_MEMORY;
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return PLAIDML_PLUGIN_UNSUPPORTED;
    default:
      return PLAIDML_PLUGIN_DEVICE_ERROR;
  }
}

plaidml_plugin_status fail_vk(const char* function, VkResult result, const std::string& context) {
  std::string message = std::string(function) + " failed: " + vk_result_name(result) + " (" +
                        std::to_string(static_cast<int>(result)) + ")";
  if (!context.empty()) message += ": " + context;
  return fail(status_of(result), std::move(message));
}

plaidml_plugin_status check_validation() {
  std::string reported = take_validation_errors();
  if (reported.empty()) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_DEVICE_ERROR, "Vulkan validation error: " + reported);
}

plaidml_plugin_status with_validation_errors(plaidml_plugin_status status) {
  std::string reported = take_validation_errors();
  if (reported.empty()) return status;
  if (status == PLAIDML_PLUGIN_OK) {
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, "Vulkan validation error: " + reported);
  }
  plugin_support::last_error_message() += "; Vulkan validation error: " + reported;
  return status;
}

}  // namespace plaidml::devices::vulkan
