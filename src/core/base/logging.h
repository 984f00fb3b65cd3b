// plaidml's private logger (never registered in spdlog's global registry, so an application's
// own spdlog use is untouched). Level from PLAIDML_LOG_LEVEL (trace, debug, info, warn, error,
// off; default warn) or the C API; an optional sink forwards lines to a user callback.
#pragma once

#include <memory>

#include <spdlog/spdlog.h>

namespace plaidml {

spdlog::logger& logger();

// Replaces the extra sink (nullptr removes it). Thread-safe.
void set_log_sink(std::shared_ptr<spdlog::sinks::sink> sink);

}  // namespace plaidml
