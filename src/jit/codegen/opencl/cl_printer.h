// Loop-IR expressions and statements printed as OpenCL C 1.2, with the value conventions of
// loop_ir.h (integer / and % by 0 give 0, saturating float->int casts, shifts out of range give
// 0, f16/bf16 computed in float and rounded on store). Shared by the band-mapped and the
// scheduled kernel emitters: they bind loop variables to C expressions (band variables and
// work-item coordinates to work-item ids) and name a scheduled kernel's __local arrays.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/codegen/gpu/gpu_target.h"
#include "jit/codegen/gpu/index_range.h"
#include "jit/lower/lower.h"

namespace plaidml::jit::opencl {

class ClPrinter {
 public:
  // index32: every index of the program fits in int (all slot sizes and loop bounds < 2^31),
  // so index arithmetic is printed in int rather than long. `scheduled`: the program's
  // scheduled GPU kernels (gpu_kernel.h), whose variables' ranges the printer needs too.
  ClPrinter(const LoweredProgram& program, bool index32,
            const std::vector<const gpu::GpuKernel*>& scheduled = {});

  // True when int index arithmetic suffices for the program (see index32).
  static bool fits_index32(const LoweredProgram& program,
                           const std::vector<const gpu::GpuKernel*>& scheduled = {});

  // C type of a slot's elements in memory (f16: half, bf16: ushort, bool: uchar, ...).
  static std::string storage_type(DType dtype);
  // C type values of dtype are computed in (f16/bf16: float, bool: bool/int as the printer uses).
  static std::string value_type(DType dtype);
  // The index type: "int" or "long".
  std::string index_type() const;

  // Loop variable or local `name` is printed as `c_expr` from now on (until rebound).
  void bind(const std::string& name, std::string c_expr);
  // A C identifier for a loop variable or local (loop-IR names may hold '$').
  static std::string identifier(const std::string& name);

  // The __local arrays that workgroup slots (gpu::workgroup_slot) name, for the kernel being
  // printed; nullptr when it has none. Borrowed until reset.
  void set_workgroup_arrays(const std::vector<gpu::WorkgroupArray>* arrays) {
    workgroup_arrays_ = arrays;
  }

  std::string expr(const loop::Expr& e);
  // An I64 index expression (a load/store index, a loop bound) in the index type: plain int
  // arithmetic when the ranges of its loop variables prove every partial result fits in int
  // (index32 programs), else the expression in long.
  std::string index(const loop::Expr& e);
  // A global load / store of slot `slot` at C index expression `index`, converting between
  // the storage type and the value type.
  std::string load(int slot, const std::string& index) const;
  std::string store(int slot, const std::string& index, const std::string& value) const;
  // Appends `s` as C statements, indented by `indent` levels.
  void stmt(const loop::Stmt& s, int indent, std::string& out);

  // Helper functions the printed code called so far (and extension pragmas), to put before
  // the kernels: call after printing every kernel.
  std::string preamble(const GpuTarget& target) const;
  // Which dtypes the printed code computes with (for f64 checks).
  bool uses_f64() const { return uses_f64_; }
  // The first error met while printing (an op the loop IR never holds): check after a kernel.
  const Status& status() const { return status_; }

  // `__kernel void name(__global T* restrict s3, ...)` over the kernel's parameters
  // (loop::parameters), in order.
  std::string signature(const loop::Kernel& kernel, const std::string& attributes = "") const;
  // The same over the parameter slots `params`, in order.
  std::string signature(const std::string& name, const std::vector<int>& params,
                        const std::string& attributes) const;

 private:
  // Value range of an index expression when it and every partial result fit in int
  // (gpu::IndexRanges::range) in an index32 program; nullopt otherwise.
  std::optional<gpu::IndexRange> int_range(const loop::Expr& e) const;
  std::string int_index(const loop::Expr& e);  // e in int: int_range(e) must hold
  std::string var_name(const std::string& name) const;
  const gpu::WorkgroupArray& workgroup_array(int slot);
  void body(const std::vector<loop::StmtPtr>& stmts, int indent, std::string& out);
  void fail(Status status);

  const LoweredProgram& program_;
  bool index32_;
  std::map<std::string, std::string> bound_;
  const std::vector<gpu::WorkgroupArray>* workgroup_arrays_ = nullptr;
  mutable std::map<std::string, std::string> helpers_;  // helper name -> definition, printed once
  bool uses_f64_ = false;
  bool uses_f16_ = false;
  gpu::IndexRanges ranges_;
  Status status_;
};

}  // namespace plaidml::jit::opencl
