// Helpers for the kernel-cache tests: scratch folders, whole-file reads and writes, and a log
// sink that keeps the lines plaidml logs, to check the user-facing warnings.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/logging.h"

namespace plaidml::testing {

// A fresh folder under the system temp folder, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "plaidml_cache_XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  REQUIRE(out.good());
}

// The regular files of a folder (names only), sorted; none when it does not exist.
inline std::vector<std::string> list_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Root writes into folders whatever their mode bits say.
inline bool running_as_root() { return ::geteuid() == 0; }

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
