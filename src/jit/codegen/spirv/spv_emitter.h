// Loop-IR expressions and statements as SPIR-V instructions inside one function (the SPIR-V
// twin of opencl::ClPrinter): loops become structured loops (OpLoopMerge, a continue block
// stepping a Function-storage loop variable), ifs selections (OpSelectionMerge), locals
// Function-storage variables, loads and stores access chains into the slots' storage buffers.
// Kernel emitters bind band variables and work-item coordinates to computed values before
// emitting a body, and name a scheduled kernel's Workgroup arrays (gpu_kernel.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jit/codegen/gpu/index_range.h"
#include "jit/codegen/spirv/spv_scalar.h"
#include "jit/lower/lower.h"

namespace plaidml::jit::spirv {

class SpvEmitter {
 public:
  // `scheduled`: the program's scheduled GPU kernels, whose variables' ranges it needs too.
  SpvEmitter(const LoweredProgram& program, SpvScalar& scalar,
             const std::vector<const gpu::GpuKernel*>& scheduled = {});
  // Before each kernel: slot_vars[k] is the StorageBuffer variable through which it reaches
  // slot k (its parameter's binding).
  void set_slot_vars(std::vector<Id> slot_vars) { slot_vars_ = std::move(slot_vars); }

  // Index arithmetic is i32 when the whole program fits (gpu::IndexRanges::fits_int32, as for
  // OpenCL's int indices): loop and band variables, tile positions, loop bounds and
  // access-chain indices are then i32, else i64. I64 data keeps exact i64 semantics either way.
  bool index32() const { return index32_; }
  DType index_dtype() const { return index32_ ? DType::I32 : DType::I64; }
  Id index_type() { return scalar_.value_type(index_dtype()); }
  Id index_const(int64_t v) { return scalar_.int_const(index_dtype(), v); }

  // An i32 value as the exact i64 (non_negative: it is known to be >= 0).
  Id widen(Id i32, bool non_negative);

  // Loop variable `name` is the value `id` (of the index type) from now on (until rebound).
  void bind_value(const std::string& name, Id id);
  // Variable `name` of dtype `t` lives in the Function variable `ptr` (loaded on each use,
  // assignable), as a declared local does.
  void bind_pointer(const std::string& name, Id ptr, DType t);
  // Runs `f`, then restores every binding as it was before (what `f` bound is forgotten).
  void scoped(const std::function<void()>& f);

  // The Workgroup variables that workgroup slots (gpu::workgroup_slot) name, for the kernel
  // being emitted: array i holds elements of `dtype` in `form` (gpu::WorkgroupArray; vectors
  // are uvec4).
  struct WorkgroupVar {
    Id var = 0;
    DType dtype = DType::F32;
    gpu::ArrayForm form = gpu::ArrayForm::kValues;
    bool stored() const { return gpu::stored_form(form); }
    bool vectors() const { return gpu::vector_form(form); }
  };
  // Per slot, a second StorageBuffer variable at its binding viewing it as 16-byte vectors
  // (uvec4), made on first use: 16-byte tile copies of matrix kernels read through it.
  void set_vector_views(std::function<Id(int slot)> view) { vector_view_ = std::move(view); }
  void set_workgroup_arrays(std::vector<WorkgroupVar> vars) {
    workgroup_vars_ = std::move(vars);
    matrix_blocks_.clear();
    copy_registers_.clear();
  }

  Id expr(const loop::Expr& e);
  void stmt(const loop::Stmt& s);
  // Statements of one scope: the locals they declare are gone after it.
  void body(const std::vector<loop::StmtPtr>& stmts);

  // The first error met (an op the loop IR never holds): check after each kernel.
  const Status& status() const { return status_; }
  SpvScalar& scalar() { return scalar_; }

 private:
  struct Binding {
    Id id = 0;
    bool pointer = false;  // a Function variable (loaded on use) rather than a value
    DType dtype = DType::I64;
  };

  // The range of an I64 index expression computed in i32 (index32 programs only).
  std::optional<gpu::IndexRange> int32_range(const loop::Expr& e) const;
  Id int32_index(const loop::Expr& e);  // e in i32 arithmetic: int32_range(e) must hold
  Id int32_divide(const loop::Expr& e, Id a, Id c);  // e: / or % of a by the constant c
  // An I64 index expression (access-chain index, loop bound) as a value of the index type.
  Id index(const loop::Expr& e);
  Id element_pointer(int slot, const loop::Expr& index);
  // A pointer to element `index` of a workgroup array, and the array (nullptr: undeclared, the
  // error recorded).
  Id workgroup_pointer(int slot, const loop::Expr& index, const WorkgroupVar** array);
  Id cast(const loop::Expr& e);
  Id bound_value(const std::string& name, DType as);
  Id load(const loop::Expr& e);
  Id op(const loop::Expr& e);
  Id lazy_select(const loop::Expr& e);  // select whose branches load: only one runs
  // f32 a * b + c as one GLSL.std.450 Fma, as OpenCL C's FP_CONTRACT ON allows (the driver may
  // or may not contract OpFMul and OpFAdd itself); nullopt for any other expression.
  std::optional<Id> fused_multiply_add(const loop::Expr& e);
  Id var(const loop::Expr& e);
  void for_loop(const loop::Stmt& s);
  void if_then(const loop::Stmt& s);
  void store(const loop::Stmt& s);
  // A buffer element copied into a stored workgroup array of its dtype as its bits; false
  // when `s` is not such a store.
  bool copy_stored(const loop::Stmt& s, Id to, const WorkgroupVar& array);
  // kMatrix (spv_matrix.cc): SPV_KHR_cooperative_matrix instructions.
  void matrix(const loop::Stmt& s);
  void matrix_zero(const std::string& block, const loop::MatrixOp& m);
  void matrix_mul_add(const std::string& block, const loop::MatrixOp& m);
  void matrix_store(const std::string& block, const loop::MatrixOp& m);
  // The operand or accumulator type of `m` (an accumulator of f32, or of f16 to store).
  Id matrix_type(const loop::MatrixOp& m, uint32_t use, int accumulator_bits = 32);
  Id matrix_load(const loop::MatrixOperand& o, int64_t row, int64_t col, Id type);
  void matrix_fetch(const std::string& block, const loop::MatrixOp& m);
  void matrix_deposit(const std::string& block, const loop::MatrixOp& m);
  // Register r's line and 16-byte segment of a kFetch / kDeposit tile.
  std::pair<loop::ExprPtr, loop::ExprPtr> copy_position(const loop::MatrixOp& m, int64_t r);
  std::vector<Id>& copy_registers(const std::string& block, const loop::MatrixOp& m);
  // A cooperative-matrix load or store's pointer: element `at` of `slot` (a workgroup array
  // or a buffer).
  Id matrix_pointer(int slot, const loop::ExprPtr& at);
  void declare(const loop::Stmt& s);
  void fail(Status status);

  const LoweredProgram& program_;
  SpvScalar& scalar_;
  SpvBuilder& b_;
  std::vector<Id> slot_vars_;
  gpu::IndexRanges ranges_;
  bool index32_;
  bool narrow_access_;  // i64 access-chain indices are narrowed: every slot fits int32
  std::map<std::string, Binding> bound_;
  std::vector<WorkgroupVar> workgroup_vars_;
  // Per accumulator block of the kernel, its fragments' Function variables, row-major.
  std::map<std::string, std::vector<Id>> matrix_blocks_;
  std::map<std::string, std::vector<Id>> copy_registers_;  // per kFetch block: uvec4 variables
  std::function<Id(int)> vector_view_;
  Status status_;
};

}  // namespace plaidml::jit::spirv
