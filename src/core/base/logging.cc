#include "core/base/logging.h"

#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include "core/base/env.h"

namespace plaidml {
namespace {

struct LoggerState {
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist = std::make_shared<spdlog::sinks::dist_sink_mt>();
  std::shared_ptr<spdlog::sinks::sink> stderr_sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  std::shared_ptr<spdlog::sinks::sink> user_sink;
  spdlog::logger logger{"plaidml", dist};

  LoggerState() {
    dist->add_sink(stderr_sink);
    logger.set_pattern("[plaidml %l] %v");
    auto level = spdlog::level::from_str(env_string("PLAIDML_LOG_LEVEL", "warn"));
    logger.set_level(level);
  }
};

LoggerState& state() {
  static LoggerState* s = new LoggerState();  // never destroyed: usable during process exit
  return *s;
}

}  // namespace

spdlog::logger& logger() { return state().logger; }

void set_log_sink(std::shared_ptr<spdlog::sinks::sink> sink) {
  auto& s = state();
  if (s.user_sink) s.dist->remove_sink(s.user_sink);
  s.user_sink = std::move(sink);
  if (s.user_sink) s.dist->add_sink(s.user_sink);
}

}  // namespace plaidml
