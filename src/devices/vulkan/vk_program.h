// Loading "spirv" artifacts (src/jit/codegen/spirv/spirv_codegen.h): one shader module, one
// compute pipeline per entry symbol (through the device's pipeline cache), and one descriptor set
// layout with a storage buffer per slot for them all (VulkanDevice::load, vk_program.cc).
#pragma once

#include "devices/vulkan/vk_handles.h"

namespace plaidml::devices::vulkan {

// Destroys an executable's Vulkan objects and the executable (the device runs nothing using it).
void release_executable(VkDevice device, VulkanExecutable* executable);

}  // namespace plaidml::devices::vulkan
