// plaidml's private logger. The level comes from PLAIDML_LOG_LEVEL (trace, debug, info, warn,
// error, critical, off, in any case; default warn) or the C API; an optional callback receives
// every line as well as stderr.
//
// spdlog lives in logging.cc alone: header-only spdlog costs about 10 s of compile time in
// every file that includes it, and most files only need to format a line. Messages are
// formatted here with fmt, and only when their level is enabled.
#pragma once

#include <functional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace plaidml {

// The values are those of plaidml_log_level in plaidml.h (and of spdlog's levels).
enum class LogLevel : int { kTrace, kDebug, kInfo, kWarn, kError, kCritical, kOff };

// Parses a level name in any case ("WARN", "Debug"); false when the name is not a level.
bool parse_log_level(std::string_view name, LogLevel* out);

class Logger {
 public:
  LogLevel level() const;
  void set_level(LogLevel level);
  bool enabled(LogLevel level) const { return level >= this->level() && level != LogLevel::kOff; }
  // Writes one line (no formatting) to stderr and the callback, if the level is enabled.
  void write(LogLevel level, std::string_view line);

  template <typename... Args>
  void log(LogLevel level, fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(level)) write(level, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void trace(fmt::format_string<Args...> f, Args&&... args) {
    log(LogLevel::kTrace, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void debug(fmt::format_string<Args...> f, Args&&... args) {
    log(LogLevel::kDebug, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> f, Args&&... args) {
    log(LogLevel::kInfo, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> f, Args&&... args) {
    log(LogLevel::kWarn, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) {
    log(LogLevel::kError, f, std::forward<Args>(args)...);
  }
};

// The process-wide logger. Thread-safe.
Logger& logger();

// Receives every enabled line besides stderr; calls are serialised. An empty function removes
// it. Thread-safe.
using LogCallback = std::function<void(LogLevel level, std::string_view line)>;
void set_log_callback(LogCallback callback);

}  // namespace plaidml
