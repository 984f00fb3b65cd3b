// Internal to src/jit/codegen/llvm: loop IR -> LLVM IR. Values live in "register types":
// Bool i1, integers iN, F16/BF16/F32 float, F64 double; in memory Bool is i8 and F16/BF16 are
// their 16-bit patterns (rounded to nearest even on store).
#pragma once

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "core/base/status.h"
#include "jit/loop/loop_ir.h"

namespace plaidml::jit::llvmgen {

struct Env {
  llvm::Module& module;
  llvm::IRBuilder<>& b;
  bool native_f16 = false;  // the target converts half <-> float in hardware (F16C / AVX512-FP16)
};

llvm::Type* reg_type(llvm::LLVMContext& ctx, DType t);
llvm::Type* mem_type(llvm::LLVMContext& ctx, DType t);
// Memory representation <-> register value.
llvm::Value* from_memory(Env& env, llvm::Value* v, DType t);
llvm::Value* to_memory(Env& env, llvm::Value* v, DType t);
llvm::Value* emit_const(Env& env, const loop::Expr& e);
// Conversion with the rules of loop_ir.h (saturating float -> int, != 0 for bool, rounding to
// f16/bf16 precision).
llvm::Value* emit_cast(Env& env, llvm::Value* v, DType from, DType to);
// An op on operands of dtype `operand` (Select: args[1], args[2]); result per loop_ir.h.
llvm::Value* emit_op(Env& env, ir::OpKind op, DType operand, std::vector<llvm::Value*> args);

// Emits `extern "C" void name(void* const* slots, int64_t begin, int64_t end)`.
Status emit_kernel(Env& env, const loop::Kernel& kernel, const std::vector<DType>& slot_dtypes,
                   const std::string& cpu, const std::string& features);

}  // namespace plaidml::jit::llvmgen
