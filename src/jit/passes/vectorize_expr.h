// Vector form of a scalar loop-IR expression along the unit-stride variable j, for the CPU
// passes: the expression at j, j+1, ..., j+lanes-1 as one vector expression (loop_ir.h). Loads
// with stride 1 along j become vector loads, everything that does not depend on j is computed
// once and broadcast, and ops apply lane by lane.
#pragma once

#include <string>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::passes {

// nullptr when `e` cannot be vectorized: a load with another stride along j, j used as a value,
// an op or dtype that vectors do not support (vectors hold F32/F64 and Bool). Expressions that
// already have `lanes` lanes are kept.
loop::ExprPtr vectorize_along(const loop::ExprPtr& e, const std::string& j, int lanes);

}  // namespace plaidml::jit::passes
