// The pattern register-block rewrites (register_block.h): a row-form contraction below the
// kernel's band, as a Match that points into the kernel's statements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/loop/loop_ir.h"

namespace plaidml::jit::passes {

// A loop over the row variable j whose body is one store.
struct RowStore {
  const loop::Stmt* loop = nullptr;
  const loop::Stmt* store = nullptr;
};

// for x { [init] <chain> { for j { S[o] = agg(S[o], v) } } [finish] } (register_block.h).
struct Match {
  loop::Stmt* x_loop = nullptr;  // the band's innermost loop, rewritten in place
  std::string x, j;
  int64_t x_lo = 0, x_hi = 0, j_lo = 0, j_hi = 0;
  int slot = -1;
  DType dtype = DType::F32;
  loop::ExprPtr index;                   // o
  std::optional<RowStore> init;          // for j { S[o] = init }
  std::vector<const loop::Stmt*> chain;  // reduction loops and guards, outermost first
  ir::OpKind agg = ir::OpKind::Add;
  loop::ExprPtr value;             // v
  std::optional<RowStore> finish;  // for j { S[o] = epilogue(S[o]) }
};

// A loop with constant bounds and step 1.
bool const_bounds(const loop::Stmt& s);

// The row form of `kernel` (which the caller may then edit through Match::x_loop), or nullopt.
std::optional<Match> match_row_form(loop::Kernel& kernel);

// A contraction of one output row (a vector times a matrix) has no row loop: its lowering loops
// over the columns, in parallel blocks of them (`j$blk`) when there are many. This gives the
// same kernel with one row loop `$row` over [0, 1) (parallel) around the columns' statements,
// their blocks undone, for match_row_form; nullopt when the kernel is not of that kind.
std::optional<loop::Kernel> as_single_row(const loop::Kernel& kernel);

// Points of the reduction chain's loops (all have constant bounds), or 0.
int64_t reduction_points(const Match& m);

}  // namespace plaidml::jit::passes
