// A log sink for tests: keeps every line plaidml logs while it lives, to check user-facing
// warnings and what PLAIDML_DUMP prints.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/base/logging.h"

namespace plaidml::testing {

// Keeps every line plaidml logs while it lives (through the logger's callback).
class LogCapture {
 public:
  LogCapture() : lines_(std::make_shared<Lines>()) {
    set_log_callback([lines = lines_](LogLevel level, std::string_view line) {
      std::lock_guard<std::mutex> lock(lines->mutex);
      lines->entries.emplace_back(level, std::string(line));
    });
  }
  ~LogCapture() { set_log_callback(nullptr); }
  // The lines at warn level or above that contain text.
  int warnings_with(const std::string& text) const {
    std::lock_guard<std::mutex> lock(lines_->mutex);
    int n = 0;
    for (const auto& [level, line] : lines_->entries) {
      if (level >= LogLevel::kWarn && line.find(text) != std::string::npos) ++n;
    }
    return n;
  }
  std::string all() const {
    std::lock_guard<std::mutex> lock(lines_->mutex);
    std::string out;
    for (const auto& entry : lines_->entries) out += entry.second + "\n";
    return out;
  }

 private:
  struct Lines {
    std::mutex mutex;
    std::vector<std::pair<LogLevel, std::string>> entries;
  };
  std::shared_ptr<Lines> lines_;
};

}  // namespace plaidml::testing
