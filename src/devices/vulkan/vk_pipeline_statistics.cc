// Pipeline statistics on stderr (vk_pipeline_statistics.h).
#include "devices/vulkan/vk_pipeline_statistics.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "devices/vulkan/vk_inventory.h"

namespace plaidml::devices::vulkan {
namespace {

bool listed(const std::vector<std::string>& extensions, const char* name) {
  for (const std::string& e : extensions) {
    if (e == name) return true;
  }
  return false;
}

std::string statistic_text(const VkPipelineExecutableStatisticKHR& s) {
  char value[64];
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      std::snprintf(value, sizeof value, "%s", s.value.b32 ? "true" : "false");
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      std::snprintf(value, sizeof value, "%" PRId64, s.value.i64);
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      std::snprintf(value, sizeof value, "%" PRIu64, s.value.u64);
      break;
    default:
      std::snprintf(value, sizeof value, "%g", s.value.f64);
      break;
  }
  return std::string(s.name) + " " + value;
}

template <typename Fn>
Fn device_function(const char* name) {
  return reinterpret_cast<Fn>(vk().vkGetInstanceProcAddr(inventory().instance, name));
}

}  // namespace

bool pipeline_statistics_requested() {
  const char* v = std::getenv("PLAIDML_VULKAN_PIPELINE_STATISTICS");
  return v && *v && std::strcmp(v, "0") != 0;
}

void read_pipeline_statistics(VkDeviceRecord* r, const std::vector<std::string>& extensions) {
  if (!pipeline_statistics_requested() || !listed(extensions, kPipelineStatisticsExtension)) return;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature{};
  feature.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &feature;
  vk().vkGetPhysicalDeviceFeatures2(r->physical, &features);
  if (!feature.pipelineExecutableInfo) return;
  r->features.pipeline_statistics = true;
  r->features.extensions.push_back(kPipelineStatisticsExtension);
}

void** PipelineStatisticsEnable::chain(void** tail) {
  feature.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  feature.pipelineExecutableInfo = VK_TRUE;
  *tail = &feature;
  return &feature.pNext;
}

void report_pipeline_statistics(VkDevice device, VkPipeline pipeline,
                                const std::string& device_name, const std::string& entry) {
  auto get_executables = device_function<PFN_vkGetPipelineExecutablePropertiesKHR>(
      "vkGetPipelineExecutablePropertiesKHR");
  auto get_statistics = device_function<PFN_vkGetPipelineExecutableStatisticsKHR>(
      "vkGetPipelineExecutableStatisticsKHR");
  if (!get_executables || !get_statistics) return;
  VkPipelineInfoKHR info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  info.pipeline = pipeline;
  uint32_t executables = 0;
  if (get_executables(device, &info, &executables, nullptr) != VK_SUCCESS) return;
  std::string line = "plaidml vulkan: " + device_name + " '" + entry + "':";
  for (uint32_t i = 0; i < executables; ++i) {
    VkPipelineExecutableInfoKHR which{};
    which.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    which.pipeline = pipeline;
    which.executableIndex = i;
    uint32_t count = 0;
    if (get_statistics(device, &which, &count, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(count);
    for (auto& s : stats) s.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    if (get_statistics(device, &which, &count, stats.data()) != VK_SUCCESS) continue;
    for (uint32_t j = 0; j < count; ++j)
      line += (j == 0 && i == 0 ? " " : ", ") + statistic_text(stats[j]);
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace plaidml::devices::vulkan
