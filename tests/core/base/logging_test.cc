// The logger: level names in any case, the level filter, and the callback.
#include "core/base/logging.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace plaidml {
namespace {

TEST_CASE("logging: level names parse in any case, others are refused") {
  LogLevel level = LogLevel::kOff;
  CHECK(parse_log_level("trace", &level));
  CHECK(level == LogLevel::kTrace);
  CHECK(parse_log_level("WARN", &level));
  CHECK(level == LogLevel::kWarn);
  CHECK(parse_log_level("Warning", &level));
  CHECK(level == LogLevel::kWarn);
  CHECK(parse_log_level("eRRoR", &level));
  CHECK(level == LogLevel::kError);
  CHECK(parse_log_level("OFF", &level));
  CHECK(level == LogLevel::kOff);
  level = LogLevel::kInfo;
  CHECK_FALSE(parse_log_level("verbose", &level));
  CHECK_FALSE(parse_log_level("", &level));
  CHECK_FALSE(parse_log_level("warn ", &level));
  CHECK(level == LogLevel::kInfo);  // untouched on failure
}

TEST_CASE("logging: the callback receives formatted lines at or above the level") {
  std::vector<std::pair<LogLevel, std::string>> lines;
  set_log_callback([&](LogLevel level, std::string_view line) {
    lines.emplace_back(level, std::string(line));
  });
  LogLevel saved = logger().level();
  logger().set_level(LogLevel::kOff);  // keeps the lines off stderr while testing the filter
  logger().warn("off: {}", 1);
  CHECK(lines.empty());
  logger().set_level(LogLevel::kInfo);
  logger().debug("hidden {}", 2);
  logger().info("shown {} of {}", 3, "four");
  logger().error("also {:.1f}", 5.0);
  set_log_callback(nullptr);
  logger().error("after removal");
  logger().set_level(saved);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == std::make_pair(LogLevel::kInfo, std::string("shown 3 of four")));
  CHECK(lines[1] == std::make_pair(LogLevel::kError, std::string("also 5.0")));
}

}  // namespace
}  // namespace plaidml
