// Errors of the OpenCL plugin: the thread-local message that last_error() returns, CL error
// codes by name, and the mapping from CL codes to plugin status codes.
#pragma once

#include <CL/cl.h>

#include <exception>
#include <new>
#include <string>

#include "plaidml/plugin.h"

namespace plaidml::devices::opencl {

// "CL_OUT_OF_RESOURCES"; unknown codes: "CL error <n>".
std::string cl_error_name(cl_int code);

// The plugin status a failed CL call maps to (allocation failures: OUT_OF_MEMORY).
plaidml_plugin_status status_of(cl_int code);

// Records `message` for last_error() on this thread and returns `code`.
plaidml_plugin_status fail(plaidml_plugin_status code, std::string message);

// A failed clX call: "<function> failed: <CL name> (<code>)", then ": <context>" if given.
plaidml_plugin_status fail_cl(const char* function, cl_int code, const std::string& context = "");

const char* last_error();
void clear_error();

// Runs body (returning a plugin status) with every C++ exception turned into a status: nothing
// may unwind through the C ABI.
template <typename Body>
plaidml_plugin_status guarded(Body&& body) noexcept {
  try {
    clear_error();
    return body();
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of host memory in the OpenCL plugin");
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, std::string("OpenCL plugin: ") + e.what());
  } catch (...) {
    return fail(PLAIDML_PLUGIN_INTERNAL, "OpenCL plugin: unknown exception");
  }
}

}  // namespace plaidml::devices::opencl
