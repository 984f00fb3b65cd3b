// Reading configuration from the environment, in one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace plaidml {

// The variable's value, or fallback when unset. An empty value counts as set.
std::string env_string(const char* name, const std::string& fallback = "");
bool env_is_set(const char* name);
// The variable parsed as an integer; nullopt when unset or not a number.
std::optional<int64_t> env_int(const char* name);

}  // namespace plaidml
