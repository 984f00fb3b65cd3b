// The Vulkan entry points the plugin uses, resolved at run time from the loader
// (libvulkan.so.1, dlopen'ed on first use) instead of linked: a machine without the loader still
// loads this module and device_count says why Vulkan is absent. Every other file calls Vulkan
// through vk(), the one table of function pointers below.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace plaidml::devices::vulkan {

// Resolved before an instance exists.
#define PLAIDML_VK_GLOBAL_FUNCTIONS(X)      \
  X(vkCreateInstance)                       \
  X(vkEnumerateInstanceVersion)             \
  X(vkEnumerateInstanceLayerProperties)     \
  X(vkEnumerateInstanceExtensionProperties)

// Resolved from the instance (device-level ones go through the loader's trampolines, which is
// enough for compute: no call here is on a hot path that a direct device pointer would help).
#define PLAIDML_VK_INSTANCE_FUNCTIONS(X)      \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkUnmapMemory)                            \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreatePipelineCache)                    \
  X(vkDestroyPipelineCache)                   \
  X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkDestroyPipeline)                        \
  X(vkCreateDescriptorPool)                   \
  X(vkDestroyDescriptorPool)                  \
  X(vkResetDescriptorPool)                    \
  X(vkAllocateDescriptorSets)                 \
  X(vkUpdateDescriptorSets)                   \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkResetCommandPool)                       \
  X(vkAllocateCommandBuffers)                 \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkCmdBindPipeline)                        \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdDispatch)                            \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdCopyBuffer)                          \
  X(vkCreateFence)                            \
  X(vkDestroyFence)                           \
  X(vkResetFences)                            \
  X(vkGetFenceStatus)                         \
  X(vkWaitForFences)                          \
  X(vkQueueSubmit)                            \
  X(vkDeviceWaitIdle)

// Present only with VK_EXT_debug_utils (the validation layer provides it); may stay NULL.
#define PLAIDML_VK_OPTIONAL_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT)      \
  X(vkDestroyDebugUtilsMessengerEXT)

#define PLAIDML_VK_MEMBER(name) PFN_##name name = nullptr;
struct VkApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PLAIDML_VK_GLOBAL_FUNCTIONS(PLAIDML_VK_MEMBER)
  PLAIDML_VK_INSTANCE_FUNCTIONS(PLAIDML_VK_MEMBER)
  PLAIDML_VK_OPTIONAL_FUNCTIONS(PLAIDML_VK_MEMBER)
};
#undef PLAIDML_VK_MEMBER

// The table; valid (global functions resolved) once load_loader() succeeded and instance
// functions once resolve_instance_functions() did.
const VkApi& vk();

// dlopens the loader (PLAIDML_VULKAN_LOADER names another file, for tests) and resolves the
// global functions. On failure returns false with the reason in *error.
bool load_loader(std::string* error);

// Resolves the instance-level table for `instance`; false names the first missing function.
bool resolve_instance_functions(VkInstance instance, std::string* error);

}  // namespace plaidml::devices::vulkan
