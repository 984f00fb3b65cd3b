#include "devices/vulkan/vk_validation.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace plaidml::devices::vulkan {
namespace {

// Process-wide: the layer may report from any thread (a driver's submit thread, too), so a
// message cannot be tied to the calling thread reliably.
std::mutex g_mutex;
std::string g_pending;
// More would only repeat the first: a broken launch in a loop reports the same error each time.
constexpr size_t kMaxPendingChars = 4096;

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT types,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* /*user*/) {
  bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  bool validation = types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  if (!error || !validation || !data || !data->pMessage) return VK_FALSE;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_pending.size() < kMaxPendingChars) {
    if (!g_pending.empty()) g_pending += "; ";
    g_pending += data->pMessage;
  }
  return VK_FALSE;  // the call proceeds as the layer decided
}

bool has_extension(const char* layer) {
  uint32_t count = 0;
  if (vk().vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> props(count);
  if (vk().vkEnumerateInstanceExtensionProperties(layer, &count, props.data()) != VK_SUCCESS) {
    return false;
  }
  for (const auto& p : props) {
    if (std::strcmp(p.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0) return true;
  }
  return false;
}

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// Whether the user enabled the layer through the loader's environment.
bool validation_layer_requested() {
  for (const char* var : {"VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE"}) {
    const char* value = std::getenv(var);
    if (value && std::strstr(value, kValidationLayer)) return true;
  }
  return false;
}

}  // namespace

bool debug_utils_available() {
  // Layers enabled through VK_INSTANCE_LAYERS add their extensions to the global list on newer
  // loaders only; asking the enabled validation layer directly covers the older ones. A layer
  // that is installed but not enabled must not count: its extension would fail the instance.
  if (has_extension(nullptr)) return true;
  return validation_layer_requested() && has_extension(kValidationLayer);
}

void install_validation_messenger(VkInstance instance) {
  if (!vk().vkCreateDebugUtilsMessengerEXT) return;
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  info.pfnUserCallback = on_message;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  // Lives as long as the instance, which lives as long as the process.
  vk().vkCreateDebugUtilsMessengerEXT(instance, &info, nullptr, &messenger);
}

std::string take_validation_errors() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::string out;
  out.swap(g_pending);
  return out;
}

}  // namespace plaidml::devices::vulkan
