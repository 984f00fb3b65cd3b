// Helpers for the kernel-cache tests: scratch folders, whole-file reads and writes, and a log
// sink that keeps the lines plaidml logs, to check the user-facing warnings.
#pragma once

#include <doctest/doctest.h>
#include <spdlog/sinks/base_sink.h>
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

// Keeps every line plaidml logs while it lives (the plaidml logger's extra sink).
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<Sink>()) { set_log_sink(sink_); }
  ~LogCapture() { set_log_sink(nullptr); }
  // The lines at warn level or above that contain text.
  int warnings_with(const std::string& text) const {
    std::lock_guard<std::mutex> lock(sink_->lines_mutex);
    int n = 0;
    for (const auto& [level, line] : sink_->lines) {
      if (level >= spdlog::level::warn && line.find(text) != std::string::npos) ++n;
    }
    return n;
  }
  std::string all() const {
    std::lock_guard<std::mutex> lock(sink_->lines_mutex);
    std::string out;
    for (const auto& entry : sink_->lines) out += entry.second + "\n";
    return out;
  }

 private:
  struct Sink : spdlog::sinks::base_sink<std::mutex> {
    std::mutex lines_mutex;
    std::vector<std::pair<spdlog::level::level_enum, std::string>> lines;
    void sink_it_(const spdlog::details::log_msg& msg) override {
      std::lock_guard<std::mutex> lock(lines_mutex);
      lines.emplace_back(msg.level, std::string(msg.payload.begin(), msg.payload.end()));
    }
    void flush_() override {}
  };
  std::shared_ptr<Sink> sink_;
};

}  // namespace plaidml::testing
