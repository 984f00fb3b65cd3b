#include "devices/vulkan/vk_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace plaidml::devices::vulkan {
namespace {

VkApi g_api;

constexpr const char* kDefaultLoader = "libvulkan.so.1";

template <typename Fn>
void resolve(VkInstance instance, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(g_api.vkGetInstanceProcAddr(instance, name));
}

}  // namespace

const VkApi& vk() { return g_api; }

bool load_loader(std::string* error) {
  const char* override_path = std::getenv("PLAIDML_VULKAN_LOADER");
  const char* path = override_path && *override_path ? override_path : kDefaultLoader;
  // Never closed: drivers keep threads and handlers that outlive any one call.
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    *error = std::string("the Vulkan loader ") + path + " could not be loaded (" +
             (why ? why : "unknown reason") + "); install libvulkan1";
    return false;
  }
  g_api.vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (!g_api.vkGetInstanceProcAddr) {
    *error = std::string(path) + " has no vkGetInstanceProcAddr: not a Vulkan loader";
    return false;
  }
#define PLAIDML_VK_RESOLVE(name) resolve(nullptr, #name, &g_api.name);
  PLAIDML_VK_GLOBAL_FUNCTIONS(PLAIDML_VK_RESOLVE)
#undef PLAIDML_VK_RESOLVE
  if (!g_api.vkCreateInstance || !g_api.vkEnumerateInstanceExtensionProperties ||
      !g_api.vkEnumerateInstanceLayerProperties) {
    *error = std::string("the Vulkan loader ") + path + " lacks the Vulkan 1.0 global functions";
    return false;
  }
  // vkEnumerateInstanceVersion is absent from 1.0 loaders: the instance then asks for 1.0 and
  // enumeration reports the loader as too old.
  return true;
}

bool resolve_instance_functions(VkInstance instance, std::string* error) {
#define PLAIDML_VK_RESOLVE(name)                                       \
  resolve(instance, #name, &g_api.name);                               \
  if (!g_api.name) {                                                   \
    *error = "the Vulkan loader does not provide " #name " (Vulkan 1.1 is needed)"; \
    return false;                                                      \
  }
  PLAIDML_VK_INSTANCE_FUNCTIONS(PLAIDML_VK_RESOLVE)
#undef PLAIDML_VK_RESOLVE
#define PLAIDML_VK_RESOLVE(name) resolve(instance, #name, &g_api.name);
  PLAIDML_VK_OPTIONAL_FUNCTIONS(PLAIDML_VK_RESOLVE)
#undef PLAIDML_VK_RESOLVE
  return true;
}

}  // namespace plaidml::devices::vulkan
