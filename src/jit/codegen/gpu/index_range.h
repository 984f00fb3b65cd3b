// Which index arithmetic of a lowered program fits 32-bit signed integers, shared by the GPU
// generators (OpenCL C computes it in int, SPIR-V in i32). The loop IR computes indices in i64
// (loop_ir.h), but 64-bit integer adds and multiplies take several instructions on GPUs, so the
// generators narrow wherever this range analysis proves every partial result fits.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/lower/lower.h"

namespace plaidml::jit::gpu {

// An inclusive value range (doubles hold every int64 bound the analysis meets closely enough:
// only whether a range fits int32 matters).
struct IndexRange {
  double lo = 0, hi = 0;
};

class IndexRanges {
 public:
  // Scans every kernel: loop variable ranges (names reused across kernels get the join of
  // their ranges) and the names of declared locals; then the scheduled GPU kernels, whose
  // work-item coordinates range over their launch.
  explicit IndexRanges(const LoweredProgram& program,
                       const std::vector<const GpuKernel*>& scheduled = {});

  // Every slot has fewer than 2^31 elements (in-bounds indices fit int32).
  bool slots_fit_int32() const { return slots_fit_; }
  // slots_fit_int32() and every loop runs (and steps past its end) within int32: loop
  // variables, in-bounds indices and loop bounds may then all be held in 32 bits.
  bool fits_int32() const { return slots_fit_ && bounds_fit_; }

  // The range of an I64 index expression built from constants, loop variables, + - *,
  // negation, / and % by a positive constant, min, max and select (of any condition), when it
  // and every partial result fit int32; nullopt for anything else (loads, locals, casts, other
  // ops).
  std::optional<IndexRange> range(const loop::Expr& e) const;
  // Declared as a local by some kernel: its values are data, never index ranges.
  bool is_local(const std::string& name) const { return locals_.count(name) != 0; }
  // An index local: every declaration of the name is an I64 index expression of known range
  // and none is assigned again (a position decoded once and read in loops, TiledBuilder's
  // hoisted sides). It holds an index like a loop variable: range() knows it, and the
  // generators declare it in 32 bits.
  bool is_index_local(const std::string& name) const {
    return index_locals_.count(name) != 0 && locals_.count(name) == 0;
  }

 private:
  void scan(const loop::Stmt& s);
  void find_assigned(const loop::Stmt& s);
  void add_loop(const std::string& name, std::optional<IndexRange> r);

  std::map<std::string, std::optional<IndexRange>> loops_;  // nullopt: unknown
  std::set<std::string> locals_;
  std::set<std::string> index_locals_, assigned_;
  bool slots_fit_ = true;
  bool bounds_fit_ = true;
};

}  // namespace plaidml::jit::gpu
