// Structural checks of a loop-IR kernel. A failure is a bug in lowering or a pass (kInternal),
// never a user error; the message names the kernel and the offending expression.
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/types/dtype.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::loop {

// slot_dtypes: the element dtype of every buffer slot of the program.
Status verify(const Kernel& kernel, const std::vector<DType>& slot_dtypes);

}  // namespace plaidml::jit::loop
