#include "core/base/env.h"

#include <cstdlib>
#include <string>

namespace plaidml {

std::string env_string(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

bool env_is_set(const char* name) { return std::getenv(name) != nullptr; }

std::optional<int64_t> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  long long value = std::strtoll(v, &end, 10);
  if (*end != '\0') return std::nullopt;
  return value;
}

}  // namespace plaidml
