// Errors of the OpenCL plugin: CL error codes by name, and the mapping from CL codes to plugin
// status codes (the scaffold, devices/plugin_support, keeps the message and fences exceptions).
#pragma once

#include <CL/cl.h>

#include <string>
#include <utility>

#include "devices/plugin_support/plugin_errors.h"
#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

// "CL_OUT_OF_RESOURCES"; unknown codes: "CL error <n>".
std::string cl_error_name(cl_int code);

// The plugin status a failed CL call maps to (allocation failures: OUT_OF_MEMORY).
plaidml_plugin_status status_of(cl_int code);

using plugin_support::fail;

// A failed clX call: "<function> failed: <CL name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_cl(const char* function, cl_int code, const std::string& context = "");

}  // namespace plaidml::devices::opencl
