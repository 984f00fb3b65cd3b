#include "jit/passes/register_block.h"

#include <fmt/format.h>

#include "jit/loop/rewrite.h"
#include "jit/passes/cache_tile_search.h"
#include "jit/passes/guard_ranges.h"
#include "jit/passes/register_tile_search.h"
#include "jit/passes/vectorize_expr.h"

namespace plaidml::jit::passes {
namespace {

using ir::OpKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

// A loop over the row variable j whose body is one store.
struct RowStore {
  const Stmt* loop = nullptr;
  const Stmt* store = nullptr;
};

struct Match {
  Stmt* x_loop = nullptr;  // the band's innermost loop, rewritten in place
  std::string x, j;
  int64_t x_lo = 0, x_hi = 0, j_lo = 0, j_hi = 0;
  int slot = -1;
  DType dtype = DType::F32;
  ExprPtr index;                   // o
  std::optional<RowStore> init;    // for j { S[o] = init }
  std::vector<const Stmt*> chain;  // reduction loops and guards, outermost first
  OpKind agg = OpKind::Add;
  ExprPtr value;                   // v
  std::optional<RowStore> finish;  // for j { S[o] = epilogue(S[o]) }
};

bool const_bounds(const Stmt& s) {
  return s.kind == StmtKind::kFor && s.lo->is_const() && s.hi->is_const() && s.step == 1;
}

std::optional<RowStore> row_store(const Stmt& s) {
  if (!const_bounds(s) || s.body.size() != 1 || s.body[0]->kind != StmtKind::kStore) {
    return std::nullopt;
  }
  return RowStore{&s, s.body[0].get()};
}

bool same_row(const RowStore& a, const Match& m) {
  return a.loop->var == m.j && a.loop->lo->int_value == m.j_lo &&
         a.loop->hi->int_value == m.j_hi && a.store->slot == m.slot &&
         loop::same_expr(*a.store->index, *m.index);
}

// The innermost band loop of the kernel: the parallel loop, then independent loops with
// constant bounds that are each the only statement of the previous one's body.
Stmt* band_bottom(loop::Kernel& kernel) {
  Stmt* s = nullptr;
  for (auto& top : kernel.body->body) {
    if (top->kind == StmtKind::kFor && top->parallel) s = top.get();
  }
  while (s && s->body.size() == 1 && s->body[0]->kind == StmtKind::kFor &&
         s->body[0]->independent && const_bounds(*s->body[0])) {
    s = s->body[0].get();
  }
  return s && const_bounds(*s) ? s : nullptr;
}

// The accumulation "for j { S[o] = agg(S[o], v) }" at the end of the chain.
bool match_accumulation(const Stmt& s, Match& m) {
  auto rs = row_store(s);
  if (!rs) return false;
  const Stmt& st = *rs->store;
  const ExprPtr& value = st.value;
  if (value->kind != loop::ExprKind::kOp || value->args.size() != 2) return false;
  OpKind op = value->op;
  if (op != OpKind::Add && op != OpKind::Mul && op != OpKind::Max && op != OpKind::Min) {
    return false;
  }
  const ExprPtr& old = value->args[0];
  if (old->kind != loop::ExprKind::kLoad || old->slot != st.slot ||
      !loop::same_expr(*old->args[0], *st.index)) {
    return false;
  }
  m.j = s.var;
  m.j_lo = s.lo->int_value;
  m.j_hi = s.hi->int_value;
  m.slot = st.slot;
  m.dtype = value->dtype;
  m.index = st.index;
  m.agg = op;
  m.value = value->args[1];
  return m.dtype == DType::F32 || m.dtype == DType::F64;
}

bool match_chain(const Stmt& root, Match& m) {
  const Stmt* s = &root;
  while (true) {
    if (s->kind == StmtKind::kFor && match_accumulation(*s, m)) return true;
    if ((s->kind != StmtKind::kFor && s->kind != StmtKind::kIf) || s->body.size() != 1) {
      return false;
    }
    m.chain.push_back(s);
    s = s->body[0].get();
  }
}

// Reduction loops and guards must not depend on j or on the row variable in ways the tile
// cannot honour: loop bounds never mention x or j, guards never mention j.
bool chain_ok(const Match& m) {
  for (const Stmt* s : m.chain) {
    if (s->kind == StmtKind::kFor) {
      for (const auto& e : {s->lo, s->hi}) {
        if (loop::mentions(*e, m.x) || loop::mentions(*e, m.j)) return false;
      }
    } else if (loop::mentions(*s->cond, m.j)) {
      return false;
    }
  }
  return true;
}

bool index_ok(const Match& m) {
  auto a = loop::affine_of(*m.index);
  if (!a || a->coeff(m.j) != 1 || a->coeff(m.x) == 0) return false;
  for (const Stmt* s : m.chain) {
    if (s->kind == StmtKind::kFor && a->coeff(s->var) != 0) return false;
  }
  return true;
}

std::optional<Match> match(loop::Kernel& kernel) {
  Match m;
  m.x_loop = band_bottom(kernel);
  if (!m.x_loop) return std::nullopt;
  m.x = m.x_loop->var;
  m.x_lo = m.x_loop->lo->int_value;
  m.x_hi = m.x_loop->hi->int_value;
  const auto& body = m.x_loop->body;
  size_t first = 0;
  if (body.size() >= 2 && row_store(*body[0])) {
    m.init = row_store(*body[0]);
    first = 1;
  }
  if (body.size() <= first || body.size() > first + 2) return std::nullopt;
  if (!match_chain(*body[first], m) || !chain_ok(m) || !index_ok(m)) return std::nullopt;
  if (m.init && !same_row(*m.init, m)) return std::nullopt;
  if (body.size() == first + 2) {
    m.finish = row_store(*body[first + 1]);
    if (!m.finish || !same_row(*m.finish, m)) return std::nullopt;
  }
  return m;
}

// Emits the tiles of one Match.
class TileEmitter {
 public:
  // columns_outer: the caller makes the column-tile loop (variable column_var()) the kernel's
  // parallel loop around the band; the tiles here are then those of one column tile.
  TileEmitter(const Match& m, const RegisterTile& tile, const CacheTile& cache, bool columns_outer)
      : m_(m), tile_(tile), cache_(cache), columns_outer_(columns_outer) {
    x0_ = m.x + "$rb";
    j0_ = m.j + "$rb";
    x1_ = m.x + "$mc";
    if (cache.kc > 0) k0_ = m.chain[0]->var + "$kc";
  }

  const std::string& column_var() const { return j0_; }
  int64_t column_width() const { return int64_t(tile_.vectors) * tile_.lanes; }

  // Vectorized forms (nullptr when an expression cannot be vectorized along j).
  bool prepare() {
    value_ = vectorize_along(m_.value, m_.j, tile_.lanes);
    if (!value_) return false;
    if (m_.init) {
      init_ = vectorize_along(m_.init->store->value, m_.j, tile_.lanes);
      if (!init_) return false;
    }
    if (m_.finish) {
      // The epilogue reads S[o] as the accumulator, which a variable stands for here.
      ExprPtr old = loop::load(m_.slot, m_.dtype, m_.index);
      ExprPtr with_acc = replace_load(m_.finish->store->value, *old,
                                      loop::var("$acc", m_.dtype, tile_.lanes));
      finish_ = vectorize_along(with_acc, m_.j, tile_.lanes);
      if (!finish_ || m_.finish->store->value->dtype != m_.dtype) return false;
    }
    return true;
  }

  // The replacement of the x loop: register tiles, within macro blocks of rows and reduction
  // blocks when cache tiling applies.
  StmtPtr emit() const {
    if (cache_.kc == 0) return jigsaw();
    const Stmt& k = *m_.chain[0];
    ExprPtr end = loop::op(OpKind::Min, DType::I64,
                           {loop::idx_add(loop::var(x1_), loop::int_const(cache_.mc)),
                            loop::int_const(m_.x_hi)});
    StmtPtr tiles = register_tiles(m_.x_lo, m_.x_hi);
    tiles->lo = loop::var(x1_);
    tiles->hi = end;
    tiles->parallel = false;
    auto k0 = loop::for_loop(k0_, k.lo->int_value, k.hi->int_value, {tiles});
    k0->step = cache_.kc;
    auto out = std::make_shared<Stmt>(*m_.x_loop);
    out->var = x1_;
    out->step = cache_.mc;
    out->body = {k0};
    return out;
  }

 private:
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
      ExprPtr full = loop::op(OpKind::Le, DType::Bool,
                              {loop::idx_add(loop::var(x0_), loop::int_const(tile_.rows)),
                               loop::int_const(hi)});
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
    auto inner = guards.empty() || parallel ? std::nullopt
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
    return loop::op(cmp, DType::Bool,
                    {loop::idx_add(loop::var(k0_), loop::int_const(offset)), loop::int_const(value)});
  }
  int64_t k_lo() const { return m_.chain[0]->lo->int_value; }
  int64_t k_hi() const { return m_.chain[0]->hi->int_value; }

  ExprPtr row(int r) const { return loop::idx_add(loop::var(x0_), loop::int_const(r)); }
  ExprPtr col(int c) const {
    return loop::idx_add(loop::var(j0_), loop::int_const(int64_t(c) * tile_.lanes));
  }
  std::map<std::string, ExprPtr> at(int r, int c) const { return {{m_.x, row(r)}, {m_.j, col(c)}}; }
  std::string acc(int r, int c) const { return fmt::format("$acc{}_{}", r, c); }
  ExprPtr acc_var(int r, int c) const { return loop::var(acc(r, c), m_.dtype, tile_.lanes); }

  static ExprPtr replace_load(const ExprPtr& e, const loop::Expr& load, const ExprPtr& with) {
    if (loop::same_expr(*e, load)) return with;
    if (e->args.empty()) return e;
    auto copy = std::make_shared<loop::Expr>(*e);
    for (auto& a : copy->args) a = replace_load(a, load, with);
    return copy;
  }

  // All column pieces of `rows` rows: full NV-vector tiles, one narrower vector tile, then the
  // scalar remainder.
  std::vector<StmtPtr> row_tile(int rows, bool guards_hold) const {
    int64_t width = int64_t(tile_.vectors) * tile_.lanes;
    int64_t span = m_.j_hi - m_.j_lo;
    int64_t full_end = m_.j_lo + span / width * width;
    int64_t narrow = (m_.j_hi - full_end) / tile_.lanes;
    int64_t vector_end = full_end + narrow * tile_.lanes;
    std::vector<StmtPtr> edge;  // the columns after the full tiles
    if (narrow > 0) {
      edge.push_back(
          column_loop(full_end, vector_end, rows, static_cast<int>(narrow), guards_hold));
    }
    if (vector_end < m_.j_hi) edge.push_back(scalar_columns(vector_end, rows));
    if (columns_outer_) {  // this column tile only: a full one, or the edge
      if (full_end == m_.j_hi) return column_body(rows, tile_.vectors, guards_hold);
      ExprPtr full = loop::op(OpKind::Le, DType::Bool,
                              {loop::idx_add(loop::var(j0_), loop::int_const(width)),
                               loop::int_const(m_.j_hi)});
      ExprPtr not_full = loop::op(OpKind::Gt, DType::Bool, {full->args[0], full->args[1]});
      return {loop::if_then(full, column_body(rows, tile_.vectors, guards_hold)),
              loop::if_then(not_full, edge)};
    }
    std::vector<StmtPtr> out;
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
    std::vector<int> all_rows;
    for (int r = 0; r < rows; ++r) all_rows.push_back(r);
    for (auto& s : chain(0, all_rows, vectors, guards_hold)) body.push_back(std::move(s));
    if (cache_.kc == 0 || !finish_) {
      for (auto& s : stores(rows, vectors, finish_ != nullptr)) body.push_back(std::move(s));
    } else {  // the epilogue after the last reduction block only
      body.push_back(loop::if_then(k0_is(OpKind::Ge, cache_.kc, k_hi()),
                                   stores(rows, vectors, finish_ != nullptr)));
      body.push_back(loop::if_then(k0_is(OpKind::Lt, cache_.kc, k_hi()),
                                   stores(rows, vectors, false)));
    }
    return body;
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

  // The reduction chain from level k for the given rows.
  std::vector<StmtPtr> chain(size_t k, const std::vector<int>& rows, int vectors,
                             bool guards_hold) const {
    if (k == m_.chain.size()) {
      std::vector<StmtPtr> out;
      for (int r : rows) {
        for (int c = 0; c < vectors; ++c) {
          ExprPtr v = loop::substitute(value_, at(r, c));
          out.push_back(loop::assign(acc(r, c), loop::op(m_.agg, m_.dtype, {acc_var(r, c), v})));
        }
      }
      return out;
    }
    const Stmt& s = *m_.chain[k];
    if (s.kind == StmtKind::kFor) {
      auto copy = std::make_shared<Stmt>(s);
      copy->body = chain(k + 1, rows, vectors, guards_hold);
      if (k == 0 && cache_.kc > 0) {  // this reduction block
        copy->lo = loop::var(k0_);
        copy->hi = loop::op(OpKind::Min, DType::I64,
                            {loop::idx_add(loop::var(k0_), loop::int_const(cache_.kc)), s.hi});
      }
      return {copy};
    }
    auto inner = [&](const std::vector<int>& r) { return chain(k + 1, r, vectors, guards_hold); };
    if (!loop::mentions(*s.cond, m_.x)) return {loop::if_then(s.cond, inner(rows))};
    if (guards_hold) return inner(rows);
    auto cond_at = [&](int r) { return loop::substitute(s.cond, {{m_.x, row(r)}}); };
    if (rows.size() == 1 || !convex(*s.cond)) {
      std::vector<StmtPtr> out;
      for (int r : rows) out.push_back(loop::if_then(cond_at(r), inner({r})));
      return out;
    }
    ExprPtr all = loop::op(OpKind::BitAnd, DType::Bool, {cond_at(rows.front()), cond_at(rows.back())});
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

  // Columns [lo, j_hi) of the tile's rows, by the original scalar statements.
  StmtPtr scalar_columns(int64_t lo, int rows) const {
    std::vector<StmtPtr> body;
    for (const auto& s : m_.x_loop->body) body.push_back(narrowed(s, lo));
    auto x = std::make_shared<Stmt>(*loop::for_loop(m_.x, 0, 0, std::move(body)));
    x->lo = loop::var(x0_);
    x->hi = loop::idx_add(loop::var(x0_), loop::int_const(rows));
    // With cache tiling, the whole reduction of these columns runs in the first block.
    if (cache_.kc > 0) return loop::if_then(k0_is(OpKind::Eq, 0, k_lo()), {x});
    return x;
  }

  // A copy of `s` whose j loops start at lo.
  StmtPtr narrowed(const StmtPtr& s, int64_t lo) const {
    auto copy = std::make_shared<Stmt>(*s);
    if (copy->kind == StmtKind::kFor && copy->var == m_.j) copy->lo = loop::int_const(lo);
    for (auto& b : copy->body) b = narrowed(b, lo);
    return copy;
  }

  const Match& m_;
  RegisterTile tile_;
  CacheTile cache_;
  bool columns_outer_ = false;
  std::string x0_, j0_, x1_, k0_;
  ExprPtr value_, init_, finish_;
};

// Points of the reduction chain's loops (all have constant bounds), or 0.
int64_t reduction_points(const Match& m) {
  int64_t points = 1;
  for (const Stmt* s : m.chain) {
    if (s->kind != StmtKind::kFor) continue;
    if (!const_bounds(*s)) return 0;
    points *= loop::trip_count(*s);
  }
  return points;
}

// Loop order: when the column operand's slice for the whole reduction (the weights of a conv:
// KH*KW*CI x CO) does not stay in L2 and its reduction cannot be cache tiled, the column tiles
// become the outermost (parallel) loop, so each tile's slice of it stays in L2 while every
// output position reads it, instead of streaming all of it once per output row.
bool wants_columns_outer(const Match& m, const RegisterTile& tile, const CpuTarget& target) {
  int64_t panel = reduction_points(m) * (m.j_hi - m.j_lo) * (dtype_bits(m.dtype) / 8);
  int64_t width = int64_t(tile.vectors) * tile.lanes;
  int64_t column_tiles = (m.j_hi - m.j_lo + width - 1) / width;
  return panel > target.l2_bytes / 2 && column_tiles >= target.threads;
}

size_t top_parallel_index(const loop::Kernel& kernel) {
  for (size_t i = 0; i < kernel.body->body.size(); ++i) {
    const Stmt& s = *kernel.body->body[i];
    if (s.kind == StmtKind::kFor && s.parallel) return i;
  }
  return 0;
}

}  // namespace

loop::Kernel register_block(const loop::Kernel& kernel, const CpuTarget& target) {
  if (target.vector_bits == 0) return kernel;
  loop::Kernel out = kernel;
  out.body = loop::deep_copy(kernel.body);
  std::optional<Match> m = match(out);
  if (!m) return kernel;
  RegisterTile tile =
      search_register_tile(m->x_hi - m->x_lo, m->j_hi - m->j_lo, dtype_bits(m->dtype), target);
  if (tile.lanes == 0) return kernel;
  CacheTile cache;
  bool one_loop = m->chain.size() == 1 && const_bounds(*m->chain[0]);
  if (one_loop) {
    cache = search_cache_tile(m->x_hi - m->x_lo, loop::trip_count(*m->chain[0]),
                              m->j_hi - m->j_lo, dtype_bits(m->dtype) / 8, tile.rows, target);
  }
  bool columns_outer = cache.kc == 0 && wants_columns_outer(*m, tile, target);
  TileEmitter emitter(*m, tile, cache, columns_outer);
  if (!emitter.prepare()) return kernel;
  size_t top = top_parallel_index(out);
  *m->x_loop = *emitter.emit();
  if (columns_outer) {
    StmtPtr band = out.body->body[top];
    band->parallel = false;
    auto columns = loop::for_loop(emitter.column_var(), m->j_lo, m->j_hi, {band}, true);
    columns->step = emitter.column_width();
    out.body->body[top] = columns;
  }
  return out;
}

}  // namespace plaidml::jit::passes
