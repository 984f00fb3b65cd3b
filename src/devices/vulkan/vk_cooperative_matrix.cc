#include "devices/vulkan/vk_cooperative_matrix.h"

#include <algorithm>

#include "devices/vulkan/vk_inventory.h"

namespace plaidml::devices::vulkan {
namespace {

// VkCooperativeMatrixPropertiesKHR's layout, and the enum values this file reads.
struct CooperativeMatrixProperties {
  VkStructureType sType = static_cast<VkStructureType>(1000506001);
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;
};
using GetProperties = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*,
                                           CooperativeMatrixProperties*);
constexpr uint32_t kFloat16 = 0, kFloat32 = 1;  // VkComponentTypeKHR
constexpr uint32_t kSubgroupScope = 3;          // VkScopeKHR

bool listed(const std::vector<std::string>& list, const char* name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool features_present(const VkDeviceRecord& r) {
  CooperativeMatrixEnable query;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  query.chain(&features.pNext);
  vk().vkGetPhysicalDeviceFeatures2(r.physical, &features);
  return query.matrix.cooperativeMatrix && query.memory_model.vulkanMemoryModel;
}

std::vector<CooperativeMatrixProperties> properties(VkPhysicalDevice physical,
                                                    GetProperties get) {
  uint32_t count = 0;
  if (get(physical, &count, nullptr) != VK_SUCCESS || count == 0) return {};
  std::vector<CooperativeMatrixProperties> out(count);
  if (get(physical, &count, out.data()) != VK_SUCCESS) return {};
  out.resize(count);
  return out;
}

}  // namespace

void** CooperativeMatrixEnable::chain(void** tail) {
  memory_model.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES;
  *tail = &matrix;
  matrix.pNext = &memory_model;
  return &memory_model.pNext;
}

void read_cooperative_matrix(VkInstance instance, VkDeviceRecord* r,
                             const std::vector<std::string>& extensions) {
  if (r->api_version < VK_API_VERSION_1_2 || !r->features.float16 || r->subgroup_size == 0 ||
      !listed(extensions, kCooperativeMatrixExtension) || !features_present(*r)) {
    return;
  }
  auto get = reinterpret_cast<GetProperties>(vk().vkGetInstanceProcAddr(
      instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!get) return;
  std::string shapes;
  for (const CooperativeMatrixProperties& p : properties(r->physical, get)) {
    if (p.AType != kFloat16 || p.BType != kFloat16 || p.CType != kFloat32 ||
        p.ResultType != kFloat32 || p.scope != kSubgroupScope || p.saturatingAccumulation) {
      continue;
    }
    if (!shapes.empty()) shapes += ",";
    shapes += "f16:" + std::to_string(p.MSize) + "x" + std::to_string(p.NSize) + "x" +
              std::to_string(p.KSize);
  }
  if (shapes.empty()) return;
  r->matrix_shapes = shapes;
  r->features.cooperative_matrix = true;
  r->features.extensions.push_back(kCooperativeMatrixExtension);
}

}  // namespace plaidml::devices::vulkan
