// Text form of loop-IR kernels: golden tests, PLAIDML_DUMP output and artifact-cache keys
// (the printed kernel must determine the generated code: print every field that matters).
#pragma once

#include <string>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::loop {

std::string to_string(const Expr& expr);
std::string to_string(const Kernel& kernel);

}  // namespace plaidml::jit::loop
