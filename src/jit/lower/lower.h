// Lowering: a BoundProgram becomes loop-IR kernels plus a buffer plan. One kernel per
// materialised graph node for now (elementwise fusion comes with the CPU performance work).
#pragma once

#include <vector>

#include "core/base/status.h"
#include "core/ir/bind.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit {

// A constant's values repacked for the CPU's register tiles (passes/weight_packing.h): the
// constant seen as `rows` rows of `cols` columns (row-major) becomes ceil(cols / width) panels,
// one after the other, each `rows` x `width` and contiguous; columns past `cols` hold zeros.
// width 0: the constant as it is.
struct PanelPacking {
  int64_t rows = 0, cols = 0, width = 0;
  Shape source;  // the constant's own shape (the slot's shape is the packed one)
  bool packed() const { return width > 0; }
  bool operator==(const PanelPacking& o) const {
    return rows == o.rows && cols == o.cols && width == o.width && source == o.source;
  }
};

// A buffer the kernels of a program read or write.
struct BufferSlot {
  enum class Role { kInput, kOutput, kTemp, kConstant };
  Role role = Role::kTemp;
  // kInput: program input position; kOutput: output position; kTemp, kConstant: node id (a
  // constant's buffer is uploaded once and stays resident: jit/constant_buffers.h).
  int index = 0;
  Shape shape;
  PanelPacking packing;  // kConstant only
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
