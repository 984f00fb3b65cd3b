// The printed loop IR of every kernel of a lowered program, for golden-text checks.
#pragma once

#include <string>

#include "jit/loop/printer.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

inline std::string print(const LoweredProgram& p) {
  std::string out;
  for (const auto& k : p.kernels) out += loop::to_string(k);
  return out;
}

}  // namespace plaidml::jit
