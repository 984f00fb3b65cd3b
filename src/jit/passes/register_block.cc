#include "jit/passes/register_block.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "jit/loop/rewrite.h"
#include "jit/passes/cache_tile_search.h"
#include "jit/passes/guard_ranges.h"
#include "jit/passes/register_tile_search.h"
#include "jit/passes/row_form_match.h"
#include "jit/passes/vectorize_expr.h"
#include "jit/passes/weight_packing.h"

namespace plaidml::jit::passes {
namespace {

using ir::OpKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

// The column operand read from panels (weight_packing.h).
struct PackedOperand {
  PackableLoad load;
  int64_t width = 0;  // the column tile's width
  int slot = -1;      // the packed slot
};

int64_t tile_width(const RegisterTile& tile) { return int64_t(tile.vectors) * tile.lanes; }

// A loop of one trip that binds `var` to `start` (a block's first index, computed from the
// parallel loop's variable) for `body`; `step` is the block's size.
StmtPtr one_trip_loop(const std::string& var, ExprPtr start, int64_t step, StmtPtr body) {
  auto s = loop::for_loop(var, 0, 0, {std::move(body)});
  s->lo = start;
  s->hi = loop::idx_add(std::move(start), loop::int_const(1));
  s->step = step;
  return s;
}

// Emits the tiles of one Match.
class TileEmitter {
 public:
  // columns_outer: the caller makes the column-tile loop (variable column_var()) the kernel's
  // parallel loop around the band; the tiles here are then those of one column tile.
  // cache.kc > 0 blocks the reduction loop m.chain[k_index] (its block loop: k0_var()).
  // target: the vector register file and the threads (macro_block_runs).
  // packed: the column operand's load to read from panels instead.
  TileEmitter(const Match& m, const RegisterTile& tile, const CacheTile& cache, size_t k_index,
              bool columns_outer, const CpuTarget& target, std::optional<PackedOperand> packed)
      : m_(m), tile_(tile), cache_(cache), columns_outer_(columns_outer), k_index_(k_index),
        registers_(target.vector_registers), threads_(target.threads),
        packed_(std::move(packed)) {
    x0_ = m.x + "$rb";
    j0_ = m.j + "$rb";
    x1_ = m.x + "$mc";
    jc_ = m.j + "$nc";
    if (cache.kc > 0) k0_ = m.chain[k_index]->var + "$kc";
    for (size_t k = 0; k < m.chain.size(); ++k) {
      if (m.chain[k]->kind == StmtKind::kFor) innermost_for_ = k;
    }
  }

  const std::string& column_var() const { return j0_; }
  // The band's loop around the rows, where it is another loop (a conv's image rows).
  void set_band_var(std::string var) { band_var_ = std::move(var); }
  const std::string& k0_var() const { return k0_; }
  int64_t column_width() const { return tile_width(tile_); }

  // Vectorized forms (nullptr when an expression cannot be vectorized along j).
  bool prepare() {
    value_ = vectorize_along(m_.value, m_.j, tile_.lanes);
    if (!value_) return false;
    if (packed_) {
      packed_source_ = vectorize_along(packed_->load.load, m_.j, tile_.lanes);
      if (!packed_source_) return false;
    }
    if (m_.init) {
      init_ = vectorize_along(m_.init->store->value, m_.j, tile_.lanes);
      if (!init_) return false;
    }
    if (m_.finish) {
      // The epilogue reads S[o] as the accumulator, which a variable stands for here.
      ExprPtr old = loop::load(m_.slot, m_.dtype, m_.index);
      ExprPtr with_acc =
          replace_load(m_.finish->store->value, *old, loop::var("$acc", m_.dtype, tile_.lanes));
      finish_ = vectorize_along(with_acc, m_.j, tile_.lanes);
      if (!finish_ || m_.finish->store->value->dtype != m_.dtype) return false;
    }
    return true;
  }

  // The replacement of the x loop: register tiles, within macro blocks of rows and reduction
  // blocks when cache tiling applies.
  StmtPtr emit() const {
    if (cache_.kc == 0 || columns_outer_) return jigsaw();  // the caller places the k0 loop
    const Stmt& k = *m_.chain[k_index_];
    ExprPtr end = loop::op(
        OpKind::Min, DType::I64,
        {loop::idx_add(loop::var(x1_), loop::int_const(cache_.mc)), loop::int_const(m_.x_hi)});
    StmtPtr tiles = register_tiles(m_.x_lo, m_.x_hi);
    tiles->lo = loop::var(x1_);
    tiles->hi = end;
    tiles->parallel = false;
    auto k0 = loop::for_loop(k0_, k.lo->int_value, k.hi->int_value, {tiles});
    k0->step = cache_.kc;
    if (column_blocks() > 1) return macro_blocks(k0);
    auto out = std::make_shared<Stmt>(*m_.x_loop);
    out->var = x1_;
    out->step = cache_.mc;
    out->body = {k0};
    return out;
  }

 private:
  int64_t column_blocks() const {
    int64_t span = m_.j_hi - m_.j_lo;
    return cache_.nc > 0 ? (span + cache_.nc - 1) / cache_.nc : 1;
  }

  // The macro blocks of rows (x1_, MC rows) and columns (jc_, NC columns) as one loop over
  // (column block, row block) pairs p = column block * row blocks + row block, each block binding
  // its x1_ and jc_ in a loop of one trip. Parallel where the x loop was, in one run of
  // consecutive blocks a thread (macro_block_runs): a thread's next block is the one whose
  // weights its last block prefetched.
  StmtPtr macro_blocks(StmtPtr body) const {
    int64_t row_blocks = (m_.x_hi - m_.x_lo + cache_.mc - 1) / cache_.mc;
    const std::string p = x1_ + "$blk";
    ExprPtr row_block = loop::int_const(0), column_block = loop::var(p);
    if (row_blocks > 1) {
      row_block = loop::op(OpKind::Mod, DType::I64, {loop::var(p), loop::int_const(row_blocks)});
      column_block = loop::op(OpKind::Div, DType::I64, {loop::var(p), loop::int_const(row_blocks)});
    }
    auto start = [](int64_t lo, ExprPtr block, int64_t size) {
      return loop::idx_add(loop::int_const(lo), loop::idx_mul(std::move(block), size));
    };
    StmtPtr rows =
        one_trip_loop(x1_, start(m_.x_lo, row_block, cache_.mc), cache_.mc, std::move(body));
    StmtPtr columns = one_trip_loop(jc_, start(m_.j_lo, column_block, cache_.nc), cache_.nc, rows);
    return macro_block_runs(p, row_blocks * column_blocks(), columns);
  }

  // The loop of `blocks` iterations of `body` over p; with more blocks than threads, a parallel
  // loop over one run of consecutive blocks a thread (the runtime hands out chunks of the
  // parallel loop as threads ask, so consecutive iterations went to different threads).
  StmtPtr macro_block_runs(const std::string& p, int64_t blocks, StmtPtr body) const {
    bool parallel = m_.x_loop->parallel;
    if (!parallel || threads_ <= 1 || blocks <= threads_) {
      return loop::independent_loop(p, 0, blocks, {std::move(body)}, parallel);
    }
    const std::string run = p + "$run";
    auto run_start = [&](ExprPtr r) {  // r * blocks / threads
      return loop::op(OpKind::Div, DType::I64,
                      {loop::idx_mul(std::move(r), blocks), loop::int_const(threads_)});
    };
    auto blocks_of_run = loop::independent_loop(p, 0, 0, {std::move(body)});
    blocks_of_run->lo = run_start(loop::var(run));
    blocks_of_run->hi = run_start(loop::idx_add(loop::var(run), loop::int_const(1)));
    return loop::independent_loop(run, 0, threads_, {blocks_of_run}, true);
  }

  // The loop over register tiles of rows [lo, hi): full tiles, and the remainder tile.
  // guards_hold: every guard on x holds in these rows (the jigsaw's interior), so the tiles
  // test none of them.
  StmtPtr register_tiles(int64_t lo, int64_t hi, bool guards_hold = false) const {
    int64_t rows = hi - lo;
    int64_t rem = rows % tile_.rows;
    std::vector<StmtPtr> body;
    if (rem == 0 || rows < tile_.rows) {
      body = row_tile(static_cast<int>(std::min<int64_t>(rows, tile_.rows)), guards_hold);
    } else {
      ExprPtr full = loop::op(
          OpKind::Le, DType::Bool,
          {loop::idx_add(loop::var(x0_), loop::int_const(tile_.rows)), loop::int_const(hi)});
      ExprPtr partial = loop::op(OpKind::Gt, DType::Bool, {full->args[0], full->args[1]});
      body = {loop::if_then(full, row_tile(tile_.rows, guards_hold)),
              loop::if_then(partial, row_tile(static_cast<int>(rem), guards_hold))};
    }
    auto out = std::make_shared<Stmt>(*m_.x_loop);
    out->var = x0_;
    out->lo = loop::int_const(lo);
    out->hi = loop::int_const(hi);
    out->step = tile_.rows;
    out->body = std::move(body);
    if (columns_outer_) out->parallel = false;
    return out;
  }

  // The rows in up to three pieces (guard_ranges.h): the borders, where guards on x may fail,
  // and the interior, where they all hold, so that no interior tile straddles a border. The
  // parallel loop stays one loop, so it is not split.
  StmtPtr jigsaw() const {
    std::vector<loop::ExprPtr> guards;
    VarRanges ranges;
    for (const Stmt* s : m_.chain) {
      if (s->kind == StmtKind::kIf && loop::mentions(*s->cond, m_.x)) guards.push_back(s->cond);
      if (s->kind == StmtKind::kFor && const_bounds(*s)) {
        ranges[s->var] = {s->lo->int_value, s->hi->int_value - 1};
      }
    }
    bool parallel = m_.x_loop->parallel && !columns_outer_;
    auto inner = guards.empty() || parallel
                     ? std::nullopt
                     : unguarded_range(guards, m_.x, m_.x_lo, m_.x_hi, ranges);
    if (!inner || (inner->first == m_.x_lo && inner->second == m_.x_hi)) {
      return register_tiles(m_.x_lo, m_.x_hi);
    }
    std::vector<StmtPtr> pieces;
    if (inner->first > m_.x_lo) pieces.push_back(register_tiles(m_.x_lo, inner->first));
    if (inner->second > inner->first) {
      pieces.push_back(register_tiles(inner->first, inner->second, /*guards_hold=*/true));
    }
    if (m_.x_hi > inner->second) pieces.push_back(register_tiles(inner->second, m_.x_hi));
    return loop::block(std::move(pieces));
  }

  // Conditions on the reduction block (cache tiling only).
  ExprPtr k0_is(OpKind cmp, int64_t offset, int64_t value) const {
    return loop::op(
        cmp, DType::Bool,
        {loop::idx_add(loop::var(k0_), loop::int_const(offset)), loop::int_const(value)});
  }
  int64_t k_lo() const { return m_.chain[k_index_]->lo->int_value; }
  int64_t k_hi() const { return m_.chain[k_index_]->hi->int_value; }

  ExprPtr row(int r) const { return loop::idx_add(loop::var(x0_), loop::int_const(r)); }
  ExprPtr col(int c) const {
    return loop::idx_add(loop::var(j0_), loop::int_const(int64_t(c) * tile_.lanes));
  }
  std::map<std::string, ExprPtr> at(int r, int c) const { return {{m_.x, row(r)}, {m_.j, col(c)}}; }
  // Accumulator (r, c) of set `set` (see accumulator_sets).
  std::string acc(int r, int c, int set = 0) const {
    return set == 0 ? fmt::format("$acc{}_{}", r, c) : fmt::format("$acc{}_{}s{}", r, c, set);
  }
  ExprPtr acc_var(int r, int c, int set = 0) const {
    return loop::var(acc(r, c, set), m_.dtype, tile_.lanes);
  }

  // A small tile (an edge: one row of a conv beside its padding, the last row of a 7-wide
  // image) has too few accumulators to hide the FMA latency: each add waits for the previous
  // one. Its innermost reduction loop then runs unrolled over several sets of accumulators,
  // summed at the end (the reduction's order changes, as it does on GPUs). 1: no split.
  int accumulator_sets(int rows, int vectors) const {
    constexpr int kChainsInFlight = 8;  // two FMA pipes of latency four
    if (m_.agg != OpKind::Add || innermost_for_ >= m_.chain.size()) return 1;
    if (m_.chain[innermost_for_]->step != 1) return 1;
    int tile = rows * vectors;
    int sets = std::min(4, (kChainsInFlight + tile - 1) / tile);
    while (sets > 1 && tile * sets + vectors + 1 > registers_) --sets;
    return sets;
  }

  // The innermost reduction loop [lo, hi) unrolled over `sets` accumulator sets: iterations
  // lo + sets * n + i accumulate into set i, the last (hi - lo) % sets into set 0.
  std::vector<StmtPtr> split_loop(const Stmt& loop_stmt, size_t k, const std::vector<int>& rows,
                                  int vectors, bool guards_hold, int sets) const {
    const std::string& v = loop_stmt.var;
    ExprPtr span = loop::op(OpKind::Sub, DType::I64, {loop_stmt.hi, loop_stmt.lo});
    ExprPtr whole = loop::op(OpKind::Div, DType::I64, {span, loop::int_const(sets)});
    ExprPtr split_end = loop::idx_add(loop_stmt.lo, loop::idx_mul(whole, sets));
    std::vector<StmtPtr> unrolled;
    for (int set = 0; set < sets; ++set) {
      std::map<std::string, ExprPtr> shift = {
          {v, loop::idx_add(loop::var(v), loop::int_const(set))}};
      for (const auto& st : chain(k + 1, rows, vectors, guards_hold, 1, set)) {
        unrolled.push_back(loop::substitute(st, shift));
      }
    }
    auto main = std::make_shared<Stmt>(loop_stmt);
    main->hi = split_end;
    main->step = sets;
    main->body = std::move(unrolled);
    auto rest = std::make_shared<Stmt>(loop_stmt);
    rest->lo = split_end;
    rest->body = chain(k + 1, rows, vectors, guards_hold, 1, 0);
    return {main, rest};
  }

  // A full tile's innermost reduction loop runs unrolled this many times (by LLVM): one trip
  // is a few dozen FMAs, and the loop's own increment, compare and branch took issue slots
  // from them (docs/cpu-schedule.md).
  static constexpr int kUnroll = 4;

  // Unrolled: a full tile's loop, unless its bounds are constants with fewer trips than copies
  // (a 3x3 conv's loop over the filter's columns).
  bool unrolls(const Stmt& loop_stmt, const std::vector<int>& rows, int vectors) const {
    bool few = loop_stmt.lo->is_const() && loop_stmt.hi->is_const() &&
               loop_stmt.hi->int_value - loop_stmt.lo->int_value < kUnroll;
    return !few && rows.size() == static_cast<size_t>(tile_.rows) && vectors == tile_.vectors;
  }

  // Packed panels in reduction blocks: the first row tile of each block reads the block from
  // memory while nothing else runs (a model's weights are not in cache), so every step of a
  // block prefetches the same step of the next block into L2. One line a step, which of the
  // tile's lines turning with the row tile (rotation()): every row tile had fetched all of them,
  // the same lines again in each of a column tile's dozens of row tiles, and the prefetches'
  // issue slots cost ResNet-50's 3x3 convs more than the cold weights had (docs/cpu-schedule.md).
  std::vector<StmtPtr> next_block_prefetches(int vectors) const {
    if (!packed_ || cache_.kc == 0) return {};
    if (!columns_outer_) return {spread_next_block_prefetch()};
    const int64_t line = 64 / (dtype_bits(m_.dtype) / 8);
    int64_t lines = std::max<int64_t>(1, int64_t(vectors) * tile_.lanes / line);
    std::map<std::string, ExprPtr> next = {
        {m_.chain[k_index_]->var, loop::idx_add(loop::var(m_.chain[k_index_]->var),
                                                loop::int_const(cache_.kc))}};
    ExprPtr index = loop::substitute(packed_element(0), next);
    if (lines > 1) {
      ExprPtr which = loop::op(OpKind::Mod, DType::I64, {rotation(), loop::int_const(lines)});
      index = loop::idx_add(index, loop::idx_mul(which, line));
    }
    return {loop::prefetch(packed_->slot, index)};
  }

  // A count that steps by one from row tile to row tile: the tile's index in its image row,
  // plus the image row where the band loops over them (a 3x3 conv), so that consecutive rows
  // start on different lines.
  ExprPtr rotation() const {
    ExprPtr tile = loop::op(OpKind::Div, DType::I64, {loop::var(x0_), loop::int_const(tile_.rows)});
    if (band_var_.empty()) return tile;
    return loop::idx_add(tile, loop::var(band_var_));
  }

  // GotoBLAS's cache tiles (emit()): a macro block's first row tile would read each KC x NC
  // block of the weights from memory while nothing else runs, one row tile's time for
  // hundreds of KiB (a cold 768 x 3072 weight: its first row tiles waited on memory). Instead
  // every step of every row tile prefetches one line of the next KC block of its column tile's
  // panel, the T row tiles of the macro block together covering it once: step s of row tile t
  // takes element (t * KC + s) * width / T of the next block's KC x width slice.
  // After a column block's last reduction block, the next block is the first of the tile at the
  // same place in the next column block (the thread's next, where blocks split contiguously).
  StmtPtr spread_next_block_prefetch() const {
    const std::string& k = m_.chain[k_index_]->var;
    ExprPtr next = loop::op(OpKind::Min, DType::I64,
                            {loop::idx_add(loop::var(k0_), loop::int_const(cache_.kc)),
                             loop::int_const(k_hi())});
    ExprPtr start = loop::substitute(packed_element(0), {{k, next}});
    if (column_blocks() > 1) {
      ExprPtr next_column_block = loop::substitute(
          packed_element(0), {{k, loop::int_const(k_lo())},
                              {j0_, loop::idx_add(loop::var(j0_), loop::int_const(cache_.nc))}});
      ExprPtr last = loop::op(  // 1 in the last reduction block, else 0 (KC <= the reduction)
          OpKind::Div, DType::I64,
          {loop::idx_add(loop::var(k0_), loop::int_const(cache_.kc - k_lo())),
           loop::int_const(k_hi() - k_lo())});
      ExprPtr jump = loop::op(OpKind::Sub, DType::I64, {next_column_block, start});
      start = loop::idx_add(start, loop::idx_mul(last, jump));
    }
    int64_t tiles = (cache_.mc + tile_.rows - 1) / tile_.rows;
    ExprPtr tile = loop::op(OpKind::Div, DType::I64,
                            {loop::op(OpKind::Sub, DType::I64, {loop::var(x0_), loop::var(x1_)}),
                             loop::int_const(tile_.rows)});
    ExprPtr step = loop::op(OpKind::Sub, DType::I64, {loop::var(k), loop::var(k0_)});
    ExprPtr position = loop::idx_add(loop::idx_mul(tile, cache_.kc), step);
    ExprPtr offset = loop::op(OpKind::Div, DType::I64,
                              {loop::idx_mul(position, column_width()), loop::int_const(tiles)});
    return loop::prefetch(packed_->slot, loop::idx_add(start, offset));
  }

  // The packed index of the tile's column `offset` (the masked tile's columns start inside the
  // last panel, the other tiles' at j0_).
  ExprPtr packed_element(int64_t offset) const {
    if (!masked_panel_) return packed_index(packed_->load, packed_->width, loop::var(j0_), offset);
    return packed_index(packed_->load, packed_->width, loop::int_const(masked_panel_->start),
                        masked_panel_->offset + offset);
  }

  // The value accumulated into column vector c, its column operand read from panels when packed.
  ExprPtr column_value(int c) const {
    if (!packed_) return value_;
    ExprPtr index = packed_element(int64_t(c) * tile_.lanes);
    return replace_load(value_, *packed_source_,
                        loop::vload(packed_->slot, m_.dtype, index, tile_.lanes));
  }

  static ExprPtr replace_load(const ExprPtr& e, const loop::Expr& load, const ExprPtr& with) {
    if (loop::same_expr(*e, load)) return with;
    if (e->args.empty()) return e;
    auto copy = std::make_shared<loop::Expr>(*e);
    for (auto& a : copy->args) a = replace_load(a, load, with);
    return copy;
  }

  // All column pieces of `rows` rows: full NV-vector tiles, one narrower vector tile, then the
  // masked vector over the remainder.
  std::vector<StmtPtr> row_tile(int rows, bool guards_hold) const {
    int64_t width = column_width();
    int64_t span = m_.j_hi - m_.j_lo;
    int64_t full_end = m_.j_lo + span / width * width;
    int64_t narrow = (m_.j_hi - full_end) / tile_.lanes;
    int64_t vector_end = full_end + narrow * tile_.lanes;
    std::vector<StmtPtr> edge;  // the columns after the full tiles
    if (narrow > 0) {
      edge.push_back(
          column_loop(full_end, vector_end, rows, static_cast<int>(narrow), guards_hold));
    }
    if (vector_end < m_.j_hi) edge.push_back(masked_columns(vector_end, rows, guards_hold));
    if (columns_outer_) {  // this column tile only: a full one, or the edge
      if (full_end == m_.j_hi) return column_body(rows, tile_.vectors, guards_hold);
      ExprPtr full = loop::op(
          OpKind::Le, DType::Bool,
          {loop::idx_add(loop::var(j0_), loop::int_const(width)), loop::int_const(m_.j_hi)});
      ExprPtr not_full = loop::op(OpKind::Gt, DType::Bool, {full->args[0], full->args[1]});
      return {loop::if_then(full, column_body(rows, tile_.vectors, guards_hold)),
              loop::if_then(not_full, edge)};
    }
    std::vector<StmtPtr> out;
    if (column_blocks() > 1) {  // this column block's tiles; the edge in the last block
      StmtPtr tiles = column_loop(m_.j_lo, full_end, rows, tile_.vectors, guards_hold);
      ExprPtr block_end = loop::idx_add(loop::var(jc_), loop::int_const(cache_.nc));
      tiles->lo = loop::var(jc_);
      tiles->hi = loop::op(OpKind::Min, DType::I64, {block_end, loop::int_const(full_end)});
      out.push_back(tiles);
      ExprPtr last = loop::op(OpKind::Ge, DType::Bool, {block_end, loop::int_const(m_.j_hi)});
      if (!edge.empty()) out.push_back(loop::if_then(last, edge));
      return out;
    }
    if (full_end > m_.j_lo) {
      out.push_back(column_loop(m_.j_lo, full_end, rows, tile_.vectors, guards_hold));
    }
    for (auto& s : edge) out.push_back(std::move(s));
    return out;
  }

  StmtPtr column_loop(int64_t lo, int64_t hi, int rows, int vectors, bool guards_hold) const {
    auto s = loop::for_loop(j0_, lo, hi, column_body(rows, vectors, guards_hold));
    s->step = int64_t(vectors) * tile_.lanes;
    return s;
  }

  // One register tile at columns j0_: accumulators, the reduction, the stores.
  std::vector<StmtPtr> column_body(int rows, int vectors, bool guards_hold) const {
    std::vector<StmtPtr> body;
    std::vector<StmtPtr> reload;  // later reduction blocks continue from memory
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < vectors; ++c) {
        body.push_back(loop::declare(acc(r, c), init_value(r, c)));
        reload.push_back(loop::assign(acc(r, c), partial_sum(r, c)));
      }
    }
    if (cache_.kc > 0 && init_) body.push_back(loop::if_then(k0_is(OpKind::Ne, 0, k_lo()), reload));
    // Sets by the full tile's width, so that every column of a row sums in one order.
    int sets = accumulator_sets(rows, tile_.vectors);
    for (int set = 1; set < sets; ++set) {
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < vectors; ++c) {
          body.push_back(
              loop::declare(acc(r, c, set), loop::broadcast(loop::zero(m_.dtype), tile_.lanes)));
        }
      }
    }
    if (cache_.kc == 0) {
      for (auto& s : epilogue_prefetches(rows, vectors)) body.push_back(std::move(s));
    }
    std::vector<int> all_rows;
    for (int r = 0; r < rows; ++r) all_rows.push_back(r);
    for (auto& s : chain(0, all_rows, vectors, guards_hold, sets, 0)) body.push_back(std::move(s));
    for (int set = 1; set < sets; ++set) {
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < vectors; ++c) {
          body.push_back(loop::assign(
              acc(r, c), loop::op(m_.agg, m_.dtype, {acc_var(r, c), acc_var(r, c, set)})));
        }
      }
    }
    if (cache_.kc == 0 || !finish_) {
      for (auto& s : stores(rows, vectors, finish_ != nullptr)) body.push_back(std::move(s));
    } else {  // the epilogue after the last reduction block only
      body.push_back(loop::if_then(k0_is(OpKind::Ge, cache_.kc, k_hi()),
                                   stores(rows, vectors, finish_ != nullptr)));
      body.push_back(
          loop::if_then(k0_is(OpKind::Lt, cache_.kc, k_hi()), stores(rows, vectors, false)));
    }
    return body;
  }

  // The epilogue's own reads (a residual added after the bias: ResNet's block outputs) come
  // after the reduction, all at once, from memory in a model (a 56x56x256 residual is 3.2 MB),
  // and the reduction's loop is too long for the core to start them early: each tile waited for
  // them. Their lines are prefetched into L2 before the reduction instead, one per line.
  std::vector<StmtPtr> epilogue_prefetches(int rows, int vectors) const {
    std::vector<StmtPtr> out;
    if (!finish_) return out;
    std::vector<const loop::Expr*> loads;
    epilogue_loads(*finish_, loads);
    int64_t vector_bytes = int64_t(tile_.lanes) * (dtype_bits(m_.dtype) / 8);
    int per_line = static_cast<int>(std::max<int64_t>(1, 64 / std::max<int64_t>(1, vector_bytes)));
    for (const loop::Expr* load : loads) {
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < vectors; c += per_line) {
          out.push_back(loop::prefetch(load->slot, loop::substitute(load->args[0], at(r, c))));
        }
      }
    }
    return out;
  }

  // Vector loads in the epilogue that move along the rows (not the bias, one row for all).
  void epilogue_loads(const loop::Expr& e, std::vector<const loop::Expr*>& out) const {
    if (e.kind == loop::ExprKind::kLoad && e.lanes > 1 && loop::mentions(*e.args[0], m_.x)) {
      out.push_back(&e);
    }
    for (const auto& a : e.args) epilogue_loads(*a, out);
  }

  ExprPtr partial_sum(int r, int c) const {
    return loop::vload(m_.slot, m_.dtype, loop::substitute(m_.index, at(r, c)), tile_.lanes);
  }

  ExprPtr init_value(int r, int c) const {
    return init_ ? loop::substitute(init_, at(r, c)) : partial_sum(r, c);
  }

  // The accumulators to memory, through the epilogue when `finished`.
  std::vector<StmtPtr> stores(int rows, int vectors, bool finished) const {
    std::vector<StmtPtr> out;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < vectors; ++c) {
        ExprPtr v = acc_var(r, c);
        if (finished) v = loop::substitute(finish_, {{"$acc", v}});
        ExprPtr index = loop::substitute(m_.index, at(r, c));
        out.push_back(loop::store(m_.slot, index, loop::substitute(v, at(r, c))));
      }
    }
    return out;
  }

  // The reduction chain from level k for the given rows, accumulating into set `set`; its
  // innermost loop split over `sets` sets (accumulator_sets).
  std::vector<StmtPtr> chain(size_t k, const std::vector<int>& rows, int vectors, bool guards_hold,
                             int sets, int set) const {
    if (k == m_.chain.size()) {
      std::vector<StmtPtr> out = next_block_prefetches(vectors);
      for (int r : rows) {
        for (int c = 0; c < vectors; ++c) {
          ExprPtr v = loop::substitute(column_value(c), at(r, c));
          out.push_back(loop::assign(acc(r, c, set),
                                     loop::op(m_.agg, m_.dtype, {acc_var(r, c, set), v})));
        }
      }
      return out;
    }
    const Stmt& s = *m_.chain[k];
    if (s.kind == StmtKind::kFor) {
      auto copy = std::make_shared<Stmt>(s);
      if (k == k_index_ && cache_.kc > 0) {  // this reduction block
        copy->lo = loop::var(k0_);
        copy->hi = loop::op(OpKind::Min, DType::I64,
                            {loop::idx_add(loop::var(k0_), loop::int_const(cache_.kc)), s.hi});
      }
      if (sets > 1 && k == innermost_for_) {
        return split_loop(*copy, k, rows, vectors, guards_hold, sets);
      }
      if (k == innermost_for_ && unrolls(*copy, rows, vectors)) copy->unroll = kUnroll;
      copy->body = chain(k + 1, rows, vectors, guards_hold, sets, set);
      return {copy};
    }
    auto inner = [&](const std::vector<int>& r) {
      return chain(k + 1, r, vectors, guards_hold, sets, set);
    };
    if (!loop::mentions(*s.cond, m_.x)) return {loop::if_then(s.cond, inner(rows))};
    if (guards_hold) return inner(rows);
    auto cond_at = [&](int r) { return loop::substitute(s.cond, {{m_.x, row(r)}}); };
    if (rows.size() == 1 || !convex(*s.cond)) {
      std::vector<StmtPtr> out;
      for (int r : rows) out.push_back(loop::if_then(cond_at(r), inner({r})));
      return out;
    }
    ExprPtr all =
        loop::op(OpKind::BitAnd, DType::Bool, {cond_at(rows.front()), cond_at(rows.back())});
    ExprPtr not_all = loop::op(OpKind::Eq, DType::Bool, {all, loop::int_const(0, DType::Bool)});
    std::vector<StmtPtr> per_row;
    for (int r : rows) per_row.push_back(loop::if_then(cond_at(r), inner({r})));
    return {loop::if_then(all, inner(rows)), loop::if_then(not_all, per_row)};
  }

  // A conjunction of affine comparisons: the points that satisfy it form a convex set.
  static bool convex(const loop::Expr& e) {
    if (e.kind != loop::ExprKind::kOp) return false;
    if (e.op == OpKind::BitAnd && e.dtype == DType::Bool) {
      return convex(*e.args[0]) && convex(*e.args[1]);
    }
    bool compare = e.op == OpKind::Ge || e.op == OpKind::Le || e.op == OpKind::Gt ||
                   e.op == OpKind::Lt || e.op == OpKind::Eq;
    return compare && loop::affine_of(*e.args[0]) && loop::affine_of(*e.args[1]);
  }

  // Columns [lo, j_hi), fewer than a vector: one vector tile whose loads and stores touch only
  // those columns. They sum in the order and with the FMAs of every other column, so equal
  // columns give equal results (a softmax over them stays uniform; scalar statements, whose
  // products round before the add, made the last columns of a 1000-wide classifier differ).
  StmtPtr masked_columns(int64_t lo, int rows, bool guards_hold) const {
    TileEmitter tail = *this;
    int64_t panel = (lo - m_.j_lo) / column_width() * column_width();  // packed: j_lo is 0
    tail.masked_panel_ = PanelAt{panel, lo - panel};
    StmtPtr tile = tail.column_loop(lo, lo + 1, rows, 1, guards_hold);
    return masked(tile, static_cast<int>(m_.j_hi - lo));
  }

  // A copy of `s` whose vector loads and stores touch their first `on` lanes only.
  static StmtPtr masked(const StmtPtr& s, int on) {
    auto copy = std::make_shared<Stmt>(*s);
    if (copy->kind == StmtKind::kStore && copy->value->lanes > 1) copy->mask_lanes = on;
    for (ExprPtr* e : {&copy->value, &copy->lo, &copy->hi, &copy->cond}) {
      if (*e) *e = masked(*e, on);
    }
    for (auto& b : copy->body) b = masked(b, on);
    return copy;
  }

  static ExprPtr masked(const ExprPtr& e, int on) {
    if (e->lanes == 1) return e;  // a scalar, and no vector inside it
    auto copy = std::make_shared<loop::Expr>(*e);
    if (copy->kind == loop::ExprKind::kLoad) copy->mask_lanes = on;
    for (auto& a : copy->args) a = masked(a, on);
    return copy;
  }

  const Match& m_;
  RegisterTile tile_;
  CacheTile cache_;
  bool columns_outer_ = false;
  size_t k_index_ = 0;
  int registers_ = 16;
  int threads_ = 1;
  size_t innermost_for_ = SIZE_MAX;  // the chain's innermost reduction loop (none: SIZE_MAX)
  std::optional<PackedOperand> packed_;
  // The masked tile starts inside the last panel: its packed reads are at this panel start and
  // offset (the other tiles start at a panel: j0_).
  struct PanelAt {
    int64_t start = 0, offset = 0;
  };
  std::optional<PanelAt> masked_panel_;
  std::string x0_, j0_, x1_, jc_, k0_, band_var_;
  ExprPtr value_, init_, finish_, packed_source_;
};

// Loop order: when the column operand's slice for the whole reduction (the weights of a conv:
// KH*KW*CI x CO) does not stay in L2 and its reduction cannot be cache tiled, the column tiles
// become the outermost (parallel) loop, so each tile's slice of it stays in L2 while every
// output position reads it, instead of streaming all of it once per output row.
// The bytes of the column operand that the whole reduction reads (a conv's KH*KW*CI x CO).
int64_t panel_bytes(const Match& m) {
  return reduction_points(m) * (m.j_hi - m.j_lo) * (dtype_bits(m.dtype) / 8);
}

int64_t column_tiles(const Match& m, const RegisterTile& tile) {
  int64_t width = tile_width(tile);
  return (m.j_hi - m.j_lo + width - 1) / width;
}

bool wants_columns_outer(const Match& m, const RegisterTile& tile, const CpuTarget& target) {
  return panel_bytes(m) > target.l2_bytes / 2 && column_tiles(m, tile) >= target.threads;
}

// With the column tiles outermost, the reduction's innermost loop (a conv's input channels) runs
// in blocks whose slice of the weights stays in cache while every row tile reads it: `budget`
// bytes (strided weights: a column tile reads only its RN columns of each weight row, so its
// lines fall in a fraction of L2's sets, and an eighth of L2 is the budget; packed weights:
// packed_block_budget). Returns {chain index, block} or nullopt (no blocking needed).
std::optional<std::pair<size_t, int64_t>> reduction_block(const Match& m, const RegisterTile& tile,
                                                          int64_t budget) {
  size_t index = m.chain.size();
  for (size_t k = 0; k < m.chain.size(); ++k) {
    if (m.chain[k]->kind == StmtKind::kFor) index = k;
  }
  if (index == m.chain.size() || !const_bounds(*m.chain[index])) return std::nullopt;
  int64_t trips = loop::trip_count(*m.chain[index]);
  int64_t per_step = reduction_points(m) / std::max<int64_t>(1, trips) * int64_t(tile.vectors) *
                     tile.lanes * (dtype_bits(m.dtype) / 8);
  int64_t fits = budget / std::max<int64_t>(1, per_step);
  // Blocks in units of 16 steps, or of 8 where 16 do not fit: a 3x3 conv's 64-column AVX-512
  // tile reads 2304 bytes a channel, and half of a 48 KiB L1 holds 10.
  int64_t unit = fits >= 16 ? 16 : 8;
  int64_t block = fits / unit * unit;
  if (block < unit || block >= trips) return std::nullopt;
  // Equal blocks (2048 channels in 1024 + 1024, not 1360 + 688): the last one as long as others.
  int64_t blocks = (trips + block - 1) / block;
  block = ((trips + blocks - 1) / blocks + unit - 1) / unit * unit;
  if (block >= trips) return std::nullopt;
  return std::make_pair(index, block);
}

size_t top_parallel_index(const loop::Kernel& kernel) {
  for (size_t i = 0; i < kernel.body->body.size(); ++i) {
    const Stmt& s = *kernel.body->body[i];
    if (s.kind == StmtKind::kFor && s.parallel) return i;
  }
  return 0;
}

// Rows too few to feed the threads (a single row: a decode step's projections), and more column
// tiles than row tiles: the columns are what there is to split. (With one row the register tile
// is one row of up to eight vectors: a 768 x 3072 weight in 24 tiles of 128 columns on AVX-512,
// too few for the other rules' several tiles per thread, and the kernel ran on one thread.)
bool few_rows_for_threads(const Match& m, const RegisterTile& tile, const CpuTarget& target) {
  if (target.threads <= 1 || !m.x_loop->parallel) return false;
  int64_t row_tiles = (m.x_hi - m.x_lo + tile.rows - 1) / tile.rows;
  return row_tiles < target.threads && column_tiles(m, tile) > row_tiles;
}

// Packing pays where the column operand's panel for the whole reduction does not stay in half of
// L1 (a smaller one stays there however strided).
std::optional<PackedOperand> choose_packing(const Match& m, const RegisterTile& tile,
                                            const CpuTarget& target,
                                            std::vector<BufferSlot>* slots) {
  if (!slots || panel_bytes(m) <= target.l1_bytes / 2) return std::nullopt;
  int64_t width = tile_width(tile);
  auto load = find_packable_load(m, width, *slots);
  if (!load) return std::nullopt;
  return PackedOperand{*load, width, -1};
}

// The row operand's bytes: the largest buffer that the reduction's value reads other than
// along the columns (a conv's input image).
int64_t row_operand_bytes(const loop::Expr& e, const std::string& j,
                          const std::vector<BufferSlot>& slots) {
  int64_t bytes = 0;
  if (e.kind == loop::ExprKind::kLoad && !loop::mentions(*e.args[0], j) && e.slot >= 0 &&
      static_cast<size_t>(e.slot) < slots.size()) {
    bytes = slots[static_cast<size_t>(e.slot)].shape.byte_size();
  }
  for (const auto& arg : e.args) bytes = std::max(bytes, row_operand_bytes(*arg, j, slots));
  return bytes;
}

// Reduction blocks over packed panels: each panel's block stays in half of L1 while every row
// tile reads it, as long as re-reading the row operand once per block is cheap (it stays in half
// of L2: a 14x14 image of 256 channels). A larger row operand (ResNet's stride-2 convs read
// 56x56x128 floats, 1.6 MB) would stream from L3 once per block: the blocks then fill a quarter
// of L2 (reading the panel from L2 costs less), most often the whole reduction. Measured on the
// light ResNet-50 (Zen 3, 512 KiB L2): its stride-2 3x3 convs 10 to 19 % faster, 3x3 convs of a
// 14x14x256 input (200 KiB) 5 % slower with the larger blocks (docs/cpu-schedule.md).
// Except where the column tile's outputs are few (a sequence of 128 tokens: 48 KiB): each block
// then re-reads them from L2 cheaply, while an L2-sized block would have every row tile read it
// from L2 (BERT's 3072 x 768 projection on a Xeon core: 131 -> 153 GFLOP/s with L1 blocks).
int64_t packed_block_budget(const Match& m, int64_t width, const std::vector<BufferSlot>& slots,
                            const CpuTarget& target) {
  bool row_operand_stays = row_operand_bytes(*m.value, m.j, slots) <= target.l2_bytes / 2;
  int64_t tile_outputs =
      slots[static_cast<size_t>(m.slot)].shape.byte_size() / (m.j_hi - m.j_lo) * width;
  bool few_outputs = tile_outputs <= target.l2_bytes / 16;
  return row_operand_stays || few_outputs ? target.l1_bytes / 2 : target.l2_bytes / 4;
}

// Packed panels go outermost (each panel's reduction block in L1 while every row reads it) where
// the whole panel leaves L2's quarter and there are column tiles for every thread to own several;
// otherwise the rows stay outermost and each row tile reads the panels from L2, contiguously.
// With several threads and fewer tiles, the panels go outermost too where the kernel's parallel
// loop runs over image rows (a 3x3 conv; row_groups then splits each tile's rows): the image
// rows split between the threads, and each read the whole panel, from memory in a model
// (ResNet-50's 28x28 3x3 convs of 128 channels, two tiles of 64 on AVX-512 and a 590 KB panel:
// 0.90 of their median time in the model at two threads, docs/cpu-schedule.md).
bool panels_outer(const Match& m, const RegisterTile& tile, bool image_rows,
                  const CpuTarget& target) {
  int64_t tiles = column_tiles(m, tile), threads = target.threads;
  if (panel_bytes(m) <= target.l2_bytes / 4) return false;
  return tiles >= 4 * threads || (threads > 1 && tiles >= threads && image_rows);
}

// The kernel's slots from its rewritten body (packing swaps the constant's slot for the packed
// one), as lowering lists them.
void update_slots(loop::Kernel& kernel) {
  std::set<int> reads, writes;
  loop::collect_slots(*kernel.body, reads, writes);
  kernel.reads.assign(reads.begin(), reads.end());
  kernel.writes.assign(writes.begin(), writes.end());
}

// Column tiles outermost, but fewer than four per thread (a 256-channel conv's 4 tiles of 64 on
// AVX-512, for 2 threads): each tile's rows (the band's loop) also split into groups, so that the
// parallel loop has several even chunks per thread. Each group still reads its tile's panel
// blocks once for all of its rows. 1: no split.
int64_t row_groups(const Match& m, const RegisterTile& tile, const loop::Stmt& band,
                   const CpuTarget& target) {
  int64_t tiles = column_tiles(m, tile);
  if (target.threads <= 1 || tiles >= 4 * int64_t(target.threads)) return 1;
  if (band.kind != StmtKind::kFor || !const_bounds(band)) return 1;
  int64_t trips = loop::trip_count(band);
  int64_t wanted = (4 * int64_t(target.threads) + tiles - 1) / tiles;
  return std::max<int64_t>(1, std::min(wanted, trips / 2));  // two trips a group at least
}

// The parallel loop over column tiles around `band` (the reduction blocks and the rows), or over
// (column tile, row group) pairs p = tile * groups + group, the band running its group's rows.
StmtPtr column_tiles_loop(const Match& m, const TileEmitter& emitter, StmtPtr band, Stmt& rows,
                          int64_t groups, int64_t tiles) {
  if (groups <= 1) {
    auto columns = loop::for_loop(emitter.column_var(), m.j_lo, m.j_hi, {band}, true);
    columns->step = emitter.column_width();
    return columns;
  }
  const std::string p = emitter.column_var() + "$grp";
  ExprPtr group = loop::op(OpKind::Mod, DType::I64, {loop::var(p), loop::int_const(groups)});
  ExprPtr tile = loop::op(OpKind::Div, DType::I64, {loop::var(p), loop::int_const(groups)});
  int64_t lo = rows.lo->int_value, step = rows.step, trips = loop::trip_count(rows);
  auto bound = [&](ExprPtr g) {  // lo + (g * trips / groups) * step
    ExprPtr first = loop::op(OpKind::Div, DType::I64,
                             {loop::idx_mul(std::move(g), trips), loop::int_const(groups)});
    return loop::idx_add(loop::int_const(lo), loop::idx_mul(first, step));
  };
  ExprPtr hi = rows.hi;
  rows.lo = bound(group);
  ExprPtr next_group = loop::idx_add(group, loop::int_const(1));
  rows.hi = loop::op(OpKind::Min, DType::I64, {bound(next_group), hi});
  ExprPtr start =
      loop::idx_add(loop::int_const(m.j_lo), loop::idx_mul(tile, emitter.column_width()));
  StmtPtr column = one_trip_loop(emitter.column_var(), start, emitter.column_width(), band);
  return loop::independent_loop(p, 0, tiles * groups, {column}, true);
}


// The row loop is the kernel's outermost loop (a matmul, a 1x1 conv over coalesced pixels), not
// inside others that would run its cache tiles again each (a strided 1x1 conv's rows of one
// image row: its weights' blocks would stream from memory once per image row).
bool rows_outermost(const loop::Kernel& kernel, const Match& m) {
  return kernel.body->body[top_parallel_index(kernel)].get() == m.x_loop;
}

// The kernel's parallel loop is another than the rows, with constant bounds and unit steps (a
// conv's image rows), which row_groups can split.
bool image_rows_parallel(const loop::Kernel& kernel, const Match& m) {
  const Stmt& top = *kernel.body->body[top_parallel_index(kernel)];
  return &top != m.x_loop && top.parallel && const_bounds(top);
}

}  // namespace

loop::Kernel register_block(const loop::Kernel& kernel, const CpuTarget& target,
                            std::vector<BufferSlot>* slots) {
  if (target.vector_bits == 0) return kernel;
  loop::Kernel out = kernel;
  out.body = loop::deep_copy(kernel.body);
  std::optional<Match> m = match_row_form(out);
  if (!m) {
    std::optional<loop::Kernel> single = as_single_row(kernel);
    if (!single) return kernel;
    out = std::move(*single);
    m = match_row_form(out);
    if (!m) return kernel;
  }
  bool one_loop = m->chain.size() == 1 && const_bounds(*m->chain[0]);
  // GotoBLAS's cache tiles (cache_tile_search.h), the panel streamed from L2 by tall tiles.
  bool cache_tiled = one_loop &&
                     wants_cache_tiles(loop::trip_count(*m->chain[0]), m->j_hi - m->j_lo,
                                       dtype_bits(m->dtype) / 8, target) &&
                     rows_outermost(out, *m);
  RegisterTile tile = search_register_tile(m->x_hi - m->x_lo, m->j_hi - m->j_lo,
                                           dtype_bits(m->dtype), target, cache_tiled);
  if (cache_tiled && m->x_hi - m->x_lo <= tile.rows) {  // one row tile: no reuse to block for
    cache_tiled = false;
    tile = search_register_tile(m->x_hi - m->x_lo, m->j_hi - m->j_lo, dtype_bits(m->dtype), target);
  }
  if (tile.lanes == 0) return kernel;
  CacheTile cache;
  if (cache_tiled) {
    cache = search_cache_tile(m->x_hi - m->x_lo, loop::trip_count(*m->chain[0]), m->j_hi - m->j_lo,
                              dtype_bits(m->dtype) / 8, tile.rows, tile_width(tile), target);
  }
  std::optional<PackedOperand> packed = choose_packing(*m, tile, target, slots);
  bool columns_outer = few_rows_for_threads(*m, tile, target) ||
                       (cache.kc == 0 && (wants_columns_outer(*m, tile, target) ||
                                          (packed && panels_outer(*m, tile,
                                                                  image_rows_parallel(out, *m),
                                                                  target))));
  if (columns_outer) cache = CacheTile{};  // reduction blocks, if any, come from reduction_block
  size_t k_index = 0;
  if (columns_outer) {
    int64_t budget = packed ? packed_block_budget(*m, tile_width(tile), *slots, target)
                            : target.l2_bytes / 8;
    if (auto block = reduction_block(*m, tile, budget)) std::tie(k_index, cache.kc) = *block;
  }
  std::vector<BufferSlot> new_slots = slots ? *slots : std::vector<BufferSlot>{};
  if (packed) packed->slot = packed_slot(packed->load, packed->width, new_slots);
  TileEmitter emitter(*m, tile, cache, k_index, columns_outer, target, packed);
  if (!emitter.prepare()) return kernel;
  if (packed) *slots = std::move(new_slots);
  size_t top = top_parallel_index(out);
  if (out.body->body[top].get() != m->x_loop) emitter.set_band_var(out.body->body[top]->var);
  // The chain's statements belong to the x loop, which the next line replaces.
  int64_t k_lo = m->chain.empty() ? 0 : m->chain[k_index]->lo->int_value;
  int64_t k_hi = m->chain.empty() ? 0 : m->chain[k_index]->hi->int_value;
  *m->x_loop = *emitter.emit();
  if (columns_outer) {
    StmtPtr rows = out.body->body[top];
    rows->parallel = false;
    int64_t groups = row_groups(*m, tile, *rows, target);
    StmtPtr band = rows;
    if (cache.kc > 0) {  // reduction blocks around the band, inside each column tile
      band = loop::for_loop(emitter.k0_var(), k_lo, k_hi, {band});
      band->step = cache.kc;
    }
    out.body->body[top] = column_tiles_loop(*m, emitter, band, *rows, groups,
                                            column_tiles(*m, tile));
  }
  if (packed) update_slots(out);
  return out;
}

}  // namespace plaidml::jit::passes
