// Text helpers for golden-text tests of printers and emitters.
#pragma once

#include <string>

namespace plaidml::testing {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace plaidml::testing
