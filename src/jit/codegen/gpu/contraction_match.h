// Recognises the register form of a contraction (jit/lower/lower_contraction.cc) in a loop-IR
// kernel, as the tiled GPU emitters (OpenCL C, SPIR-V) need it:
//   band loops (independent, constant bounds) {
//     var acc = init
//     [if g0] for r1 { [if g1] for r2 { ... [if gk] acc = agg(acc, comb(loads)) } }
//     epilogue (the store of acc, possibly with a fused elementwise tail)
//   }
// and sorts the loads of the aggregation by what their index depends on, which decides whether
// a load can be staged through workgroup-shared memory.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::gpu {

struct RegisterForm {
  std::vector<const loop::Stmt*> band;  // outermost first; back() is the n loop
  const loop::Stmt* declare = nullptr;  // the accumulator local
  // From the first statement after the declaration to the aggregation's parent: each a kIf or a
  // kFor with a single-statement body, outermost first.
  std::vector<const loop::Stmt*> path;
  size_t k_pos = 0;  // position in path of the staged reduction loop (the innermost kFor)
  const loop::Stmt* assign = nullptr;       // acc = agg(acc, ...)
  std::vector<const loop::Stmt*> epilogue;  // statements after the reduction

  // The band loops merged into the m dimension, band[m_first] .. band[size - 2], flattened
  // with the innermost fastest (an implicit GEMM: a conv's batch, rows and columns as one m of
  // B * H * W). m_first == size - 1: no m (a one-loop band).
  size_t m_first = 0;

  const loop::Stmt& k_loop() const { return *path[k_pos]; }
  const loop::Stmt& n_loop() const { return *band.back(); }
  bool has_m() const { return m_first + 1 < band.size(); }
  // The m group, outermost first (empty without m), and its flattened extent (1 without m).
  std::vector<const loop::Stmt*> m_loops() const {
    return {band.begin() + static_cast<std::ptrdiff_t>(m_first), band.end() - 1};
  }
  int64_t m_extent() const;
  // Band loops before the m group: one workgroup per value (grid dim 2).
  size_t uniform_band_count() const { return m_first; }
};


// The register form of `kernel`, else nullopt: no parallel band, no reduction loop, a
// reduction loop with non-constant bounds, or any other shape. The m group is the band loop
// before n, and the loops before it while the group's extent is below kMergeExtent and no
// load of the aggregation reads both the loop and n (such a load could then not be staged).
std::optional<RegisterForm> match_register_form(const loop::Kernel& kernel);

// An m group this long fills the tiles the search offers (128 rows at most) within a few
// percent: merging further loops would add index arithmetic for nothing.
inline constexpr int64_t kMergeExtent = 1024;

// Names of the variables (loop variables and locals) an expression reads, loads' indices
// included.
std::set<std::string> vars_of(const loop::Expr& e);
bool has_load(const loop::Expr& e);
// Every load of the aggregation statement (form.assign's value), in expression order.
std::vector<const loop::Expr*> aggregation_loads(const RegisterForm& form);

// Where a load of the aggregation lives in the tiled kernel.
enum class LoadSide {
  kGlobal,  // read from global memory at each point (depends on both m and n, or not on k)
  kM,       // a [BK][BM] shared tile: depends on k and m, not n
  kN,       // a [BK][BN] shared tile: depends on k and n, not m
  kK,       // a [BK] shared tile: depends on k only (among k, m, n)
};

struct ClassifiedLoad {
  const loop::Expr* load = nullptr;
  LoadSide side = LoadSide::kGlobal;
  std::string key;  // the load's loop-IR text (loop::to_string): equal loads share one tile
};

// The distinct loads of the aggregation statement. A load is staged only when its index reads
// nothing but k, its own side's variable, uniform band variables and outer reduction variables,
// contains no load, and its value is not bool (no bool in shared memory).
std::vector<ClassifiedLoad> classify_loads(const RegisterForm& form);

// Variables the whole workgroup agrees on: uniform band variables and reduction loop variables
// outside k.
std::set<std::string> uniform_vars(const RegisterForm& form);

// The coefficient of `var` in an index expression built from +, -, * by constants and casts;
// nullopt when it is not of that shape.
std::optional<int64_t> linear_coeff(const loop::Expr& e, const std::string& var);

}  // namespace plaidml::jit::gpu
