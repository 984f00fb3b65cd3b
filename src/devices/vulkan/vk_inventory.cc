#include "devices/vulkan/vk_inventory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_validation.h"

namespace plaidml::devices::vulkan {
namespace {

// Shaders target Vulkan 1.1 (SPIR-V 1.3); asking for more only lets newer drivers expose the
// 1.2/1.3 feature structs without extensions.
constexpr uint32_t kMaxApi = VK_API_VERSION_1_3;

std::string driver_files() {
  for (const char* var : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::string(var) + "=" + v;
  }
  return "VK_DRIVER_FILES=<unset>, so the system's icd.d directories";
}

VkResult create_instance(uint32_t api, VkInstance* out) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "plaidml";
  app.pEngineName = "plaidml";
  app.apiVersion = api;
  std::vector<const char*> extensions;
  if (debug_utils_available()) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  return vk().vkCreateInstance(&info, nullptr, out);
}

void no_devices(VkInventory* inv, plaidml_plugin_status status, std::string why) {
  inv->status = status;
  inv->why_absent = std::move(why);
}

void enumerate_devices(VkInventory* inv) {
  uint32_t count = 0;
  VkResult r = vk().vkEnumeratePhysicalDevices(inv->instance, &count, nullptr);
  std::vector<VkPhysicalDevice> physical(count);
  if (r == VK_SUCCESS && count > 0) {
    r = vk().vkEnumeratePhysicalDevices(inv->instance, &count, physical.data());
  }
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    return no_devices(inv, PLAIDML_PLUGIN_DEVICE_ERROR,
                      "vkEnumeratePhysicalDevices failed: " + vk_result_name(r));
  }
  std::string skipped;
  for (VkPhysicalDevice p : physical) {
    auto record = std::make_unique<VkDeviceRecord>();
    std::string why;
    if (describe_physical_device(inv->instance, p, record.get(), &why)) {
      inv->devices.push_back(std::move(record));
    } else {
      skipped += (skipped.empty() ? "" : "; ") + why;
    }
  }
  if (inv->devices.empty()) {
    no_devices(inv, PLAIDML_PLUGIN_NOT_FOUND,
               physical.empty() ? "the Vulkan driver reports no devices (" + driver_files() + ")"
                                : "no Vulkan device can run compute shaders: " + skipped);
  }
}

VkInventory enumerate() {
  VkInventory inv;
  std::string error;
  if (!load_loader(&error)) {
    no_devices(&inv, PLAIDML_PLUGIN_NOT_FOUND, error);
    return inv;
  }
  uint32_t loader_api = VK_API_VERSION_1_0;
  if (vk().vkEnumerateInstanceVersion) vk().vkEnumerateInstanceVersion(&loader_api);
  if (loader_api < VK_API_VERSION_1_1) {
    no_devices(&inv, PLAIDML_PLUGIN_UNSUPPORTED, "the Vulkan loader is 1.0; plaidml needs 1.1");
    return inv;
  }
  VkResult r = create_instance(std::min(loader_api, kMaxApi), &inv.instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    no_devices(&inv, PLAIDML_PLUGIN_NOT_FOUND,
               "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER; is an ICD "
               "such as mesa-vulkan-drivers installed? " +
                   driver_files() + ")");
    return inv;
  }
  if (r != VK_SUCCESS) {
    no_devices(&inv, PLAIDML_PLUGIN_DEVICE_ERROR, "vkCreateInstance failed: " + vk_result_name(r));
    return inv;
  }
  if (!resolve_instance_functions(inv.instance, &error)) {
    no_devices(&inv, PLAIDML_PLUGIN_UNSUPPORTED, error);
    return inv;
  }
  install_validation_messenger(inv.instance);
  enumerate_devices(&inv);
  return inv;
}

}  // namespace

const VkInventory& inventory() {
  // A function-local static: initialised once even when several threads ask at once. The
  // instance is never destroyed: drivers may still run threads at process exit.
  static const VkInventory inv = enumerate();
  return inv;
}

}  // namespace plaidml::devices::vulkan
