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
// NVIDIA's workgroup-scope matrices of flexible dimensions, staged through shared memory by the
// driver; plaidml uses those two of its features only.
inline constexpr const char* kWorkgroupMatrixExtension = "VK_NV_cooperative_matrix2";

struct VkDeviceRecord;

// VkPhysicalDeviceCooperativeMatrixFeaturesKHR's layout.
struct CooperativeMatrixFeatures {
  VkStructureType sType = static_cast<VkStructureType>(1000506000);
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

// VkPhysicalDeviceCooperativeMatrix2FeaturesNV's layout.
struct CooperativeMatrix2Features {
  VkStructureType sType = static_cast<VkStructureType>(1000593000);
  void* pNext = nullptr;
  VkBool32 workgroup_scope = VK_FALSE, flexible_dimensions = VK_FALSE, reductions = VK_FALSE;
  VkBool32 conversions = VK_FALSE, per_element_operations = VK_FALSE;
  VkBool32 tensor_addressing = VK_FALSE, block_loads = VK_FALSE;
};

// The structs a device create chains to enable cooperative matrices (and the Vulkan memory
// model their SPIR-V needs), and workgroup-scope ones where `workgroup`.
struct CooperativeMatrixEnable {
  CooperativeMatrixFeatures matrix;
  VkPhysicalDeviceVulkanMemoryModelFeatures memory_model{};
  CooperativeMatrix2Features matrix2;
  // Appends them to the chain at *tail (the feature struct chain of vkCreateDevice); returns
  // the new tail.
  void** chain(void** tail, bool workgroup);
};

// Whether to report VK_NV_cooperative_matrix2's workgroup-scope shapes (below): yes unless
// PLAIDML_VULKAN_WORKGROUP_MATRICES is "0" (the subgroup kernels only, to compare). On the
// H200 they ran f16 matmul 1024-8192 1.05-1.45x faster than the subgroup kernels (0.46
// against 0.52 ms at 4096; bench/RESULTS.md).
bool workgroup_matrices_requested();

// Sets r->matrix_shapes ("f16:16x16x16,...") and r->features.cooperative_matrix when the
// device has the extension, its feature, the Vulkan memory model (core 1.2) and shaderFloat16,
// and reports at least one f16 x f16 + f32 shape at subgroup scope; adds the extension to
// r->features.extensions then. Unless told not to (above), where VK_NV_cooperative_matrix2 also
// offers workgroup scope with flexible dimensions (up to 256 at least), appends its f16 x f16 + f32
// granularities ("f16:32x32x16@256": the workgroup's invocations), adds that extension and
// sets r->features.workgroup_matrix. Needs r->features.float16 read first.
void read_cooperative_matrix(VkInstance instance, VkDeviceRecord* r,
                             const std::vector<std::string>& extensions);

}  // namespace plaidml::devices::vulkan
