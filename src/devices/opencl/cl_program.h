// Loading "opencl-c" artifacts: OpenCL C source built for the device, one kernel per symbol.
#pragma once

#include "devices/opencl/cl_handles.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

inline constexpr const char* kFormat = "opencl-c";

plaidml_plugin_status load(plaidml_plugin_device device, const char* format, const void* bytes,
                           uint64_t num_bytes, const char* const* symbols, size_t num_symbols,
                           plaidml_plugin_executable* out_executable);
void unload(plaidml_plugin_device device, plaidml_plugin_executable executable);

}  // namespace plaidml::devices::opencl
