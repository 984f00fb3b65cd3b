// Log level and log callback: a small spdlog sink that forwards each line to the C callback
// (spdlog 1.10 has no callback_sink).
#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

#include "capi/errors.h"
#include "core/base/logging.h"

namespace plaidml::capi {
namespace {

plaidml_log_level to_c_level(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return PLAIDML_LOG_TRACE;
    case spdlog::level::debug:
      return PLAIDML_LOG_DEBUG;
    case spdlog::level::info:
      return PLAIDML_LOG_INFO;
    case spdlog::level::warn:
      return PLAIDML_LOG_WARN;
    case spdlog::level::err:
      return PLAIDML_LOG_ERROR;
    case spdlog::level::critical:
      return PLAIDML_LOG_CRITICAL;
    case spdlog::level::off:
      return PLAIDML_LOG_OFF;
    case spdlog::level::n_levels:
      break;
  }
  return PLAIDML_LOG_OFF;
}

// base_sink<std::mutex> serialises calls, which is what the header promises the callback.
class CallbackSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  CallbackSink(plaidml_log_callback callback, void* user_data)
      : callback_(callback), user_data_(user_data) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    callback_(user_data_, to_c_level(msg.level), text.c_str());
  }
  void flush_() override {}

 private:
  plaidml_log_callback callback_;
  void* user_data_;
};

}  // namespace
}  // namespace plaidml::capi

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
    logger().set_level(static_cast<spdlog::level::level_enum>(level));
    return Status::ok();
  });
}

plaidml_status plaidml_set_log_callback(plaidml_log_callback callback, void* user_data) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char*) -> Status {
    if (callback == nullptr) {
      set_log_sink(nullptr);
    } else {
      set_log_sink(std::make_shared<capi::CallbackSink>(callback, user_data));
    }
    return Status::ok();
  });
}

}  // extern "C"
