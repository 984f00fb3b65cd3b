// The only file that includes spdlog (see logging.h). The logger is never registered in
// spdlog's global registry, so an application's own spdlog use is untouched.
#include "core/base/logging.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>

#include "core/base/env.h"

namespace plaidml {
namespace {

constexpr std::array<std::string_view, 7> kLevelNames = {"trace", "debug",    "info", "warn",
                                                         "error", "critical", "off"};

spdlog::level::level_enum to_spdlog(LogLevel level) {
  return static_cast<spdlog::level::level_enum>(level);
}

// base_sink<std::mutex> serialises calls, which is what set_log_callback promises.
class CallbackSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CallbackSink(LogCallback callback) : callback_(std::move(callback)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    callback_(static_cast<LogLevel>(msg.level),
              std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  LogCallback callback_;
};

struct LoggerState {
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist =
      std::make_shared<spdlog::sinks::dist_sink_mt>();
  std::shared_ptr<spdlog::sinks::sink> user_sink;
  spdlog::logger logger{"plaidml", dist};

  LoggerState() {
    dist->add_sink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    logger.set_pattern("[plaidml %l] %v");
    logger.set_level(to_spdlog(LogLevel::kWarn));
    apply_environment_level();
  }

  // An unknown name keeps the default and says so once, naming the accepted values.
  void apply_environment_level() {
    if (!env_is_set("PLAIDML_LOG_LEVEL")) return;
    std::string name = env_string("PLAIDML_LOG_LEVEL");
    LogLevel level;
    if (parse_log_level(name, &level)) {
      logger.set_level(to_spdlog(level));
      return;
    }
    logger.warn(
        "PLAIDML_LOG_LEVEL='{}' is not a log level; keeping 'warn'. Accepted values (any "
        "case): trace, debug, info, warn, error, critical, off",
        name);
  }
};

LoggerState& state() {
  static LoggerState* s = new LoggerState();  // never destroyed: usable during process exit
  return *s;
}

}  // namespace

bool parse_log_level(std::string_view name, LogLevel* out) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "warning") lower = "warn";
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (lower == kLevelNames[i]) {
      *out = static_cast<LogLevel>(i);
      return true;
    }
  }
  return false;
}

LogLevel Logger::level() const { return static_cast<LogLevel>(state().logger.level()); }

void Logger::set_level(LogLevel level) { state().logger.set_level(to_spdlog(level)); }

void Logger::write(LogLevel level, std::string_view line) {
  state().logger.log(to_spdlog(level), line);
}

Logger& logger() {
  static Logger instance;
  state();  // reads PLAIDML_LOG_LEVEL on first use
  return instance;
}

void set_log_callback(LogCallback callback) {
  auto& s = state();
  if (s.user_sink) s.dist->remove_sink(s.user_sink);
  s.user_sink = callback ? std::make_shared<CallbackSink>(std::move(callback)) : nullptr;
  if (s.user_sink) s.dist->add_sink(s.user_sink);
}

}  // namespace plaidml
