// Lowering: a BoundProgram becomes loop-IR kernels plus a buffer plan. One kernel per
// materialised graph node for now (elementwise fusion comes with the CPU performance work).
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/ir/bind.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit {

// A buffer the kernels of a program read or write.
struct BufferSlot {
  enum class Role { kInput, kOutput, kTemp, kConstant };
  Role role = Role::kTemp;
  // kInput: program input position; kOutput: output position; kTemp, kConstant: node id (a
  // constant's buffer is uploaded once and stays resident: jit/constant_buffers.h).
  int index = 0;
  Shape shape;
};

struct LoweredProgram {
  std::vector<BufferSlot> slots;
  std::vector<loop::Kernel> kernels;  // in execution order
};

struct LowerOptions {
  // For GPUs: contractions take the register form whenever it applies (never the CPU's row
  // form), so every output loop is an independent loop of the kernel's band, and elementwise
  // consumers fuse into a contraction's store.
  bool gpu = false;
};

Expected<LoweredProgram> lower(const ir::BoundProgram& bound, const LowerOptions& options = {});

}  // namespace plaidml::jit
