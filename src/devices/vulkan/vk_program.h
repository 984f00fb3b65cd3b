// Loading "spirv" artifacts (src/jit/codegen/spirv/spirv_codegen.h): one shader module, one
// compute pipeline per entry symbol (through the device's pipeline cache), and one descriptor set
// layout with a storage buffer per slot for them all.
#pragma once

#include "devices/vulkan/vk_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::vulkan {

inline constexpr const char* kFormat = "spirv";

plaidml_plugin_status load(plaidml_plugin_device device, const char* format, const void* bytes,
                           uint64_t num_bytes, const char* const* symbols, size_t num_symbols,
                           plaidml_plugin_executable* out_executable);
void unload(plaidml_plugin_device device, plaidml_plugin_executable executable);

// Destroys an executable's Vulkan objects and the handle (the device runs nothing using it).
void release_executable(VkDevice device, plaidml_plugin_executable executable);

}  // namespace plaidml::devices::vulkan
