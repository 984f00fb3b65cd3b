// What the driver's compiler made of each kernel, for whoever tunes the SPIR-V generator:
// with PLAIDML_VULKAN_PIPELINE_STATISTICS=1 in the environment, on a device with
// VK_KHR_pipeline_executable_properties, each compute pipeline is created with its statistics
// captured and one line per pipeline goes to stderr ("plaidml vulkan: <device> '<entry>':
// Register Count 128, Local Memory Size 0, ..."): registers and spills are the numbers the
// Vulkan API gives of the compiled code (NVIDIA, Mesa). Off by default; nothing else changes.
#pragma once

#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace plaidml::devices::vulkan {

inline constexpr const char* kPipelineStatisticsExtension = "VK_KHR_pipeline_executable_properties";

struct VkDeviceRecord;

// Whether the environment asks for statistics.
bool pipeline_statistics_requested();

// Sets r->features.pipeline_statistics and adds the extension when asked for and the device
// has the extension and its feature.
void read_pipeline_statistics(VkDeviceRecord* r, const std::vector<std::string>& extensions);

// The feature struct a device create chains to enable it.
struct PipelineStatisticsEnable {
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature{};
  void** chain(void** tail);
};

// The stderr line of `pipeline` (created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR).
void report_pipeline_statistics(VkDevice device, VkPipeline pipeline,
                                const std::string& device_name, const std::string& entry);

}  // namespace plaidml::devices::vulkan
