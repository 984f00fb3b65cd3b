// simplify: folds constant index arithmetic, drops loops that run zero times and inlines loops
// that run once, and removes conditions known at compile time.
#pragma once

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::passes {

loop::Kernel simplify(const loop::Kernel& kernel);

// Constant folding of one expression (i64 and integer arithmetic, comparisons, logic on bool).
loop::ExprPtr fold(const loop::ExprPtr& expr);

}  // namespace plaidml::jit::passes
