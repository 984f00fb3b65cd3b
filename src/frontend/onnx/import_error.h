// Errors inside the importer. Converters throw; the C entry points (onnx_capi.cc) are the one
// place that catches, turning every error into a plaidml_status and the thread's last error
// message (plaidml_set_last_error), so nothing thrown here ever reaches a C caller.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "plaidml/plaidml.h"

namespace plaidml::onnx_import {

class ImportError : public std::runtime_error {
 public:
  ImportError(plaidml_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  plaidml_status status() const { return status_; }

 private:
  plaidml_status status_;
};

// UNSUPPORTED: a valid model using something the importer does not implement.
template <typename... Args>
[[noreturn]] void unsupported(fmt::format_string<Args...> format, Args&&... args) {
  throw ImportError(PLAIDML_STATUS_UNSUPPORTED, fmt::format(format, std::forward<Args>(args)...));
}

// INVALID_ARGUMENT: a malformed model.
template <typename... Args>
[[noreturn]] void invalid(fmt::format_string<Args...> format, Args&&... args) {
  throw ImportError(PLAIDML_STATUS_INVALID_ARGUMENT,
                    fmt::format(format, std::forward<Args>(args)...));
}

// IO_ERROR: a file that cannot be opened or read.
template <typename... Args>
[[noreturn]] void io_error(fmt::format_string<Args...> format, Args&&... args) {
  throw ImportError(PLAIDML_STATUS_IO_ERROR, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace plaidml::onnx_import
