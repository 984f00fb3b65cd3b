// Log level and log callback: the C callback receives each line through the logger's
// callback (core/base/logging.h), which serialises the calls as plaidml.h promises.
#include <string>

#include "capi/errors.h"
#include "core/base/logging.h"

// The C levels and the logger's are the same numbers, so each converts to the other by a cast.
static_assert(static_cast<int>(plaidml::LogLevel::kTrace) == PLAIDML_LOG_TRACE);
static_assert(static_cast<int>(plaidml::LogLevel::kDebug) == PLAIDML_LOG_DEBUG);
static_assert(static_cast<int>(plaidml::LogLevel::kInfo) == PLAIDML_LOG_INFO);
static_assert(static_cast<int>(plaidml::LogLevel::kWarn) == PLAIDML_LOG_WARN);
static_assert(static_cast<int>(plaidml::LogLevel::kError) == PLAIDML_LOG_ERROR);
static_assert(static_cast<int>(plaidml::LogLevel::kCritical) == PLAIDML_LOG_CRITICAL);
static_assert(static_cast<int>(plaidml::LogLevel::kOff) == PLAIDML_LOG_OFF);

extern "C" {

plaidml_status plaidml_set_log_level(plaidml_log_level level) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    if (level < PLAIDML_LOG_TRACE || level > PLAIDML_LOG_OFF) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: log level {} is not one of PLAIDML_LOG_TRACE (0) .. "
                        "PLAIDML_LOG_OFF (6)",
                        fn, level);
    }
    logger().set_level(static_cast<LogLevel>(level));
    return Status::ok();
  });
}

plaidml_status plaidml_set_log_callback(plaidml_log_callback callback, void* user_data) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char*) -> Status {
    if (callback == nullptr) {
      set_log_callback(nullptr);
    } else {
      set_log_callback([callback, user_data](LogLevel level, std::string_view line) {
        std::string text(line);  // NUL-terminated for C
        callback(user_data, static_cast<plaidml_log_level>(level), text.c_str());
      });
    }
    return Status::ok();
  });
}

}  // extern "C"
