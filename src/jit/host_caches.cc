#include "jit/host_caches.h"

#include <fstream>
#include <string>

namespace plaidml::jit {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "48K", "2048K", "1M" -> bytes; 0 when unreadable.
int64_t parse_size(const std::string& text) {
  size_t end = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &end);
  } catch (...) {
    return 0;
  }
  char unit = end < text.size() ? text[end] : ' ';
  if (unit == 'K') return value * 1024;
  if (unit == 'M') return value * 1024 * 1024;
  return value;
}

HostCaches read_caches() {
  HostCaches caches;
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::string level = read_line(dir + "level");
    if (level.empty()) break;
    std::string type = read_line(dir + "type");
    int64_t size = parse_size(read_line(dir + "size"));
    if (size <= 0 || type == "Instruction") continue;
    if (level == "1") caches.l1_bytes = size;
    if (level == "2") caches.l2_bytes = size;
  }
  return caches;
}

}  // namespace

const HostCaches& host_caches() {
  static const HostCaches caches = read_caches();
  return caches;
}

}  // namespace plaidml::jit
