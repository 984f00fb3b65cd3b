// VK_KHR_cooperative_matrix (tensor cores through the portable API): which f16 x f16 + f32
// multiply-adds a device runs at subgroup scope, and the feature structs that enable them. The
// extension's types are declared here when the Vulkan headers predate it (Debian 12's 1.3.239
// does), with the registry's values.
#pragma once

#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace plaidml::devices::vulkan {

inline constexpr const char* kCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";

struct VkDeviceRecord;

// VkPhysicalDeviceCooperativeMatrixFeaturesKHR's layout.
struct CooperativeMatrixFeatures {
  VkStructureType sType = static_cast<VkStructureType>(1000506000);
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

// The structs a device create chains to enable cooperative matrices (and the Vulkan memory
// model their SPIR-V needs).
struct CooperativeMatrixEnable {
  CooperativeMatrixFeatures matrix;
  VkPhysicalDeviceVulkanMemoryModelFeatures memory_model{};
  // Appends both to the chain at *tail (the feature struct chain of vkCreateDevice); returns
  // the new tail.
  void** chain(void** tail);
};

// Sets r->matrix_shapes ("f16:16x16x16,...") and r->features.cooperative_matrix when the
// device has the extension, its feature, the Vulkan memory model (core 1.2) and shaderFloat16,
// and reports at least one f16 x f16 + f32 shape at subgroup scope; adds the extension to
// r->features.extensions then. Needs r->features.float16 read first.
void read_cooperative_matrix(VkInstance instance, VkDeviceRecord* r,
                             const std::vector<std::string>& extensions);

}  // namespace plaidml::devices::vulkan
