// Errors of the OpenCL plugin: the thread-local message that last_error() returns, CL error
// codes by name, and the mapping from CL codes to plugin status codes.
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

using plugin_support::clear_error;
using plugin_support::fail;
using plugin_support::last_error;

// A failed clX call: "<function> failed: <CL name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_cl(const char* function, cl_int code, const std::string& context = "");

// Runs body (returning a plugin status) with every C++ exception turned into a status.
template <typename Body>
plaidml_plugin_status guarded(Body&& body) noexcept {
  return plugin_support::guarded("OpenCL plugin", std::forward<Body>(body));
}

}  // namespace plaidml::devices::opencl
