#include "devices/vulkan/vk_cooperative_matrix.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

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
constexpr uint32_t kFloat16 = 0, kFloat32 = 1;               // VkComponentTypeKHR
constexpr uint32_t kWorkgroupScope = 2, kSubgroupScope = 3;  // VkScopeKHR

// VkCooperativeMatrixFlexibleDimensionsPropertiesNV's and
// VkPhysicalDeviceCooperativeMatrix2PropertiesNV's layouts.
struct FlexibleDimensions {
  VkStructureType sType = static_cast<VkStructureType>(1000593001);
  void* pNext = nullptr;
  uint32_t MGranularity = 0, NGranularity = 0, KGranularity = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;
  uint32_t workgroupInvocations = 0;
};
using GetFlexible = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, FlexibleDimensions*);
struct Matrix2Properties {
  VkStructureType sType = static_cast<VkStructureType>(1000593002);
  void* pNext = nullptr;
  uint32_t max_workgroup_size = 0, max_dimension = 0, reserved_shared_memory = 0;
};
// The largest fragment side the workgroup-scope tiles use (matrix_kernel.cc).
constexpr uint32_t kLargestSide = 256;

bool listed(const std::vector<std::string>& list, const char* name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// Which of the features the device has (workgroup: whether to ask for matrix2's too).
CooperativeMatrixEnable features_of(const VkDeviceRecord& r, bool workgroup) {
  CooperativeMatrixEnable query;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  query.chain(&features.pNext, workgroup);
  query.matrix2.workgroup_scope = query.matrix2.flexible_dimensions = VK_FALSE;
  vk().vkGetPhysicalDeviceFeatures2(r.physical, &features);
  return query;
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

// The f16 x f16 + f32 workgroup-scope granularities ("f16:16x16x16@256,..."), or "" where the
// device has none plaidml can use.
std::string workgroup_shapes(VkInstance instance, const VkDeviceRecord& r) {
  const CooperativeMatrixEnable f = features_of(r, true);
  if (!f.matrix2.workgroup_scope || !f.matrix2.flexible_dimensions) return "";
  Matrix2Properties limits;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &limits;
  vk().vkGetPhysicalDeviceProperties2(r.physical, &properties);
  auto get = reinterpret_cast<GetFlexible>(vk().vkGetInstanceProcAddr(
      instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  uint32_t count = 0;
  if (!get || limits.max_dimension < kLargestSide ||
      get(r.physical, &count, nullptr) != VK_SUCCESS) {
    return "";
  }
  std::vector<FlexibleDimensions> list(count);
  if (count == 0 || get(r.physical, &count, list.data()) != VK_SUCCESS) return "";
  list.resize(count);
  std::string out;
  for (const FlexibleDimensions& p : list) {
    if (p.AType != kFloat16 || p.BType != kFloat16 || p.CType != kFloat32 ||
        p.ResultType != kFloat32 || p.scope != kWorkgroupScope || p.saturatingAccumulation ||
        p.workgroupInvocations == 0 || p.workgroupInvocations > limits.max_workgroup_size ||
        kLargestSide % p.MGranularity != 0 || kLargestSide % p.NGranularity != 0 ||
        32 % p.KGranularity != 0) {
      continue;
    }
    if (!out.empty()) out += ",";
    out += "f16:" + std::to_string(p.MGranularity) + "x" + std::to_string(p.NGranularity) + "x" +
           std::to_string(p.KGranularity) + "@" + std::to_string(p.workgroupInvocations);
  }
  return out;
}

}  // namespace

bool workgroup_matrices_requested() {
  const char* v = std::getenv("PLAIDML_VULKAN_WORKGROUP_MATRICES");
  return !v || std::strcmp(v, "0") != 0;
}

void** CooperativeMatrixEnable::chain(void** tail, bool workgroup) {
  memory_model.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES;
  *tail = &matrix;
  matrix.pNext = &memory_model;
  if (!workgroup) return &memory_model.pNext;
  matrix2.workgroup_scope = matrix2.flexible_dimensions = VK_TRUE;
  memory_model.pNext = &matrix2;
  return &matrix2.pNext;
}

void read_cooperative_matrix(VkInstance instance, VkDeviceRecord* r,
                             const std::vector<std::string>& extensions) {
  if (r->api_version < VK_API_VERSION_1_2 || !r->features.float16 || r->subgroup_size == 0 ||
      !listed(extensions, kCooperativeMatrixExtension)) {
    return;
  }
  const CooperativeMatrixEnable present = features_of(*r, false);
  if (!present.matrix.cooperativeMatrix || !present.memory_model.vulkanMemoryModel) return;
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
  r->features.cooperative_matrix = true;
  r->features.extensions.push_back(kCooperativeMatrixExtension);
  const std::string workgroup =
      workgroup_matrices_requested() && listed(extensions, kWorkgroupMatrixExtension)
          ? workgroup_shapes(instance, *r)
          : "";
  if (!workgroup.empty()) {
    shapes += "," + workgroup;
    r->features.workgroup_matrix = true;
    r->features.extensions.push_back(kWorkgroupMatrixExtension);
  }
  r->matrix_shapes = shapes;
}

}  // namespace plaidml::devices::vulkan
