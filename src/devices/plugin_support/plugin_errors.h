// The error side of the plugin ABI (include/plaidml/plugin.h) that every GPU plugin module
// needs: the calling thread's last message, fail(), and guarded(), which keeps every C++
// exception from unwinding through the C ABI. Header-only: plugin modules link nothing of
// libplaidml, and each module (symbols hidden) gets its own copy of the thread-local message.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "plaidml/plugin.h"

namespace plaidml::devices::plugin_support {

// The calling thread's last failure message, as last_error() returns it. Initial-exec TLS:
// plugin modules are dlopened, and their default (dynamic) TLS blocks make GCC 12's
// LeakSanitizer crash at exit ("Tracer caught signal 11" on a bogus DTLS range); glibc keeps
// static TLS space for a few initial-exec variables of dlopened modules, which LSan scans fine.
inline std::string& last_error_message() {
  thread_local std::string message __attribute__((tls_model("initial-exec")));
  return message;
}

// Records `message` for last_error() on this thread and returns `code`.
inline plaidml_plugin_status fail(plaidml_plugin_status code, std::string message) {
  last_error_message() = std::move(message);
  return code;
}

inline const char* last_error() { return last_error_message().c_str(); }
inline void clear_error() { last_error_message().clear(); }

// Runs body (returning a plugin status) with every C++ exception turned into a status naming
// `plugin` ("OpenCL plugin").
template <typename Body>
plaidml_plugin_status guarded(const char* plugin, Body&& body) noexcept {
  try {
    clear_error();
    return body();
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, std::string("out of host memory in the ") + plugin);
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, std::string(plugin) + ": " + e.what());
  } catch (...) {
    return fail(PLAIDML_PLUGIN_INTERNAL, std::string(plugin) + ": unknown exception");
  }
}

}  // namespace plaidml::devices::plugin_support
