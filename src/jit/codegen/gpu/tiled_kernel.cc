// build_tiled_kernel (tiled_kernel.h): the plan and tile choice written out as loop IR.
#include "jit/codegen/gpu/tiled_kernel.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "jit/codegen/gpu/kernel_builders.h"
#include "jit/loop/printer.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {

using loop::ExprKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

namespace {

using namespace build;  // NOLINT: the short builders are this file's vocabulary

// The kernel's own variables (reserved: lowering names nothing with '@').
const char* const kChunk = "@k0";  // the first k position of the staged chunk
const char* const kKStep = "@kk";   // the k step within the chunk
// TiledPlan::zero_fill: whether this work-item staged a non-finite value into the checked tile,
// and the point a flagged workgroup recomputes.
const char* const kNotFinite = "@nonfinite";
const char* const kExactPoint = "@pt";
const char* const kExactAcc = "@exact";
const char* const kFlagged = "@flagged";  // the workgroup's flag, raised or not
const char* const kClean = "@clean";

void append(std::vector<StmtPtr>& out, std::vector<StmtPtr> more) {
  for (StmtPtr& s : more) out.push_back(std::move(s));
}

// `e` with every load whose text is a key of `staged` replaced by its register.
ExprPtr replace_staged(const ExprPtr& e, const std::map<std::string, ExprPtr>& staged) {
  if (e->kind == ExprKind::kLoad) {
    auto it = staged.find(loop::to_string(*e));
    if (it != staged.end()) return it->second;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<loop::Expr>(*e);
  for (auto& a : copy->args) a = replace_staged(a, staged);
  return copy;
}

class TiledBuilder {
 public:
  TiledBuilder(const TiledPlan& plan, const TileChoice& tiles)
      : plan_(plan), form_(plan.form), c_(tiles), uniform_(uniform_band_values(form_)) {}

  std::vector<StmtPtr> body() {
    std::vector<StmtPtr> out = accumulators();
    append(out, decoded_sides());
    if (checks_finite()) append(out, clear_flag());
    append(out, reduction(0, nullptr));
    append(out, checks_finite() ? exact_if_flagged() : epilogue());
    return out;
  }

 private:
  static ExprPtr id(const std::string& name) { return loop::var(name); }
  ExprPtr tid() const { return add(mul(id(local_id(1)), c_.tx), id(local_id(0))); }
  // The band positions of point rn / rm of this work-item.
  ExprPtr n_at(int rn) const { return n_at(c(rn)); }
  ExprPtr m_at(int rm) const { return m_at(c(rm)); }
  ExprPtr n_at(ExprPtr rn) const {
    return add(mul(id(group_id(0)), c_.bn()), grouped(std::move(rn), local_id(0), c_.tx, c_.rn));
  }
  ExprPtr m_at(ExprPtr rm) const {
    return add(mul(id(group_id(1)), c_.bm()), grouped(std::move(rm), local_id(1), c_.ty, c_.rm));
  }
  // Register r's position within the block along a side of `threads` work-items (this one
  // `lid`) and `registers` registers, in groups of register_group(registers) consecutive
  // positions, the groups threads * group apart.
  static ExprPtr grouped(ExprPtr r, const std::string& lid, int threads, int registers) {
    const int64_t g = register_group(registers);
    const ExprPtr own = mul(id(lid), g);
    if (g == 1) return add(own, mul(std::move(r), threads));
    if (r->is_const()) return add(own, c((r->int_value / g) * g * threads + r->int_value % g));
    return add(own, add(mul(index_op(ir::OpKind::Div, r, c(g)), g * threads),
                        index_op(ir::OpKind::Mod, r, c(g))));
  }
  // Points past the output extents keep a zero and never touch memory.
  ExprPtr point_valid(int rm, int rn) const { return point_valid(c(rm), c(rn)); }
  ExprPtr point_valid(ExprPtr rm, ExprPtr rn) const {
    ExprPtr n_ok = less(n_at(std::move(rn)), c(loop::trip_count(form_.n_loop())));
    if (!form_.has_m()) return n_ok;
    return both(less(m_at(std::move(rm)), c(form_.m_extent())), n_ok);
  }
  std::string acc(int rm, int rn) const { return fmt::format("@acc{}_{}", rm, rn); }
  ExprPtr acc_var(int rm, int rn) const {
    return loop::var(acc(rm, rn), form_.declare->value->dtype);
  }
  static std::string operand(size_t tile, int r) { return fmt::format("@t{}_{}", tile, r); }
  // The band variables, the uniform ones and the accumulator at point (rm, rn).
  Bindings point(int rm, int rn) const { return point(c(rm), c(rn), acc_var(rm, rn)); }
  Bindings point(ExprPtr rm, ExprPtr rn, ExprPtr accumulator) const {
    Bindings b = uniform_;
    b[form_.n_loop().var] = value_of(form_.n_loop(), n_at(std::move(rn)));
    bind_m(m_at(std::move(rm)), b);
    b[form_.declare->var] = std::move(accumulator);
    return b;
  }
  // A tile row: its side's extent plus padding, so that a walk down a column (k fastest) meets
  // different banks.
  int64_t width(const StagedTile& t) const { return tile_row(t, c_); }
  // The tile's side: BM or BN elements per k position.
  int64_t side_extent(const StagedTile& t) const {
    return t.load.side == LoadSide::kM ? c_.bm() : c_.bn();
  }

  void bind_m(ExprPtr m, Bindings& b) const { build::bind_m(form_, std::move(m), b); }
  std::vector<StmtPtr> accumulators() const;
  std::vector<StmtPtr> reduction(size_t i, ExprPtr uniform) const;
  std::vector<StmtPtr> chunk_loop(ExprPtr uniform) const;

  // Staging: a tile's elements per chunk, the steps of threads that cover them, whether the
  // next chunk is prefetched into registers.
  struct Element {
    ExprPtr e, kk, side;
  };
  int64_t stage_elements(size_t tile) const;
  int64_t stage_steps(size_t tile) const;
  bool prefetched() const;
  DType tile_dtype(size_t tile) const { return plan_.tiles[tile].load.load->dtype; }
  static std::string staged_register(size_t tile, int64_t step) {
    return fmt::format("@p{}_{}", tile, step);
  }
  Element element(size_t tile, ExprPtr step) const;
  // `step`: the element's constant step (fetch_all), or -1 (a loop's step, stage()).
  std::vector<StmtPtr> fetch(size_t tile, const Element& el, int64_t step, ExprPtr k0,
                             const std::string& v) const;
  // An m-side tile's safety guards read the m group's variables, decoded from the element's m
  // position (a division by each loop's trips) at each fetch. With prefetching, an element's m
  // position is the same in every chunk and every outer reduction step, so the variables the
  // guards read are decoded once, before the reduction, where that takes a few registers.
  std::vector<std::string> guarded_m_vars(size_t tile) const;
  bool hoists_sides(size_t tile) const;
  static std::string side_local(size_t tile, int64_t step, const std::string& var) {
    return fmt::format("@side{}_{}_{}", tile, step, var);
  }
  std::vector<StmtPtr> decoded_sides() const;
  StmtPtr deposit(size_t tile, const Element& el, const std::string& v) const;
  std::vector<StmtPtr> within(size_t tile, const Element& el, std::vector<StmtPtr> body) const;
  std::vector<StmtPtr> fetch_all(size_t tile, const ExprPtr& k0) const;
  std::vector<StmtPtr> deposit_all(size_t tile) const;
  StmtPtr stage(size_t tile) const;
  StmtPtr compute() const;
  bool guards_by_m() const;
  std::vector<StmtPtr> hoisted_guards() const;
  // The hoisted part of point (rm, rn)'s condition.
  ExprPtr hoisted_guard(int rm, int rn) const;
  static std::string guard_name(int rm, int rn) {
    return rn < 0 ? fmt::format("@g{}", rm) : fmt::format("@g{}_{}", rm, rn);
  }
  std::vector<StmtPtr> operand_registers() const;
  std::vector<StmtPtr> epilogue() const;
  // TiledPlan::zero_fill with a checked tile: the workgroup's flag (the array after the tiles),
  // cleared before the reduction; after it, the epilogue, or where a work-item of the group
  // flagged a non-finite value, every point recomputed the reference's way.
  bool checks_finite() const { return plan_.checks_finite(); }
  int flag_slot() const { return workgroup_slot(plan_.tiles.size()); }
  ExprPtr flag_read(ir::OpKind compare) const;
  std::vector<StmtPtr> clear_flag() const;
  StmtPtr note_not_finite(size_t tile, const std::string& v) const;
  std::vector<StmtPtr> exact_if_flagged() const;
  StmtPtr exact_points() const;

  const TiledPlan& plan_;
  const RegisterForm& form_;
  TileChoice c_;
  Bindings uniform_;  // the band loops other than m and n, decoded from group_id(2)
};

std::vector<StmtPtr> TiledBuilder::accumulators() const {
  std::vector<StmtPtr> out;
  const ExprPtr init = form_.declare->value;
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      out.push_back(loop::declare(acc(rm, rn), loop::zero(init->dtype)));
      out.push_back(loop::if_then(point_valid(rm, rn),
                                  {loop::assign(acc(rm, rn), loop::substitute(init, point(rm, rn)))}));
    }
  }
  return out;
}

// The reduction loops outside k stay serial loops (every work-item runs the same trips); the
// uniform guards among them gate the chunk loop's trip count.
std::vector<StmtPtr> TiledBuilder::reduction(size_t i, ExprPtr uniform) const {
  if (i == form_.k_pos) return chunk_loop(uniform);
  const Stmt& s = *form_.path[i];
  if (s.kind == StmtKind::kFor) {
    return {counted(s.var, loop::substitute(s.lo, uniform_), loop::substitute(s.hi, uniform_),
                    s.step, reduction(i + 1, uniform))};
  }
  if (plan_.uniform_ifs.count(i) != 0) uniform = both(uniform, loop::substitute(s.cond, uniform_));
  return reduction(i + 1, uniform);  // a point guard is evaluated in compute()
}

// With prefetching (prefetched()), each chunk's elements are read from global memory into
// registers while the previous chunk is computed: the loads' latency hides behind the
// multiply-adds (double buffering through registers; the arrays stay single). Without, each
// chunk is staged before it is computed.
std::vector<StmtPtr> TiledBuilder::chunk_loop(ExprPtr uniform) const {
  const int64_t k = loop::trip_count(form_.k_loop());
  ExprPtr trips = c(k);
  if (uniform) trips = loop::op(ir::OpKind::Select, DType::I64, {uniform, c(k), c(0)});
  const bool prefetch = prefetched();
  std::vector<StmtPtr> out = hoisted_guards(), body;
  if (prefetch) {
    for (size_t t = 0; t < plan_.tiles.size(); ++t) {
      for (int64_t i = 0; i < stage_steps(t); ++i) {
        out.push_back(loop::declare(staged_register(t, i), loop::zero(tile_dtype(t))));
      }
      append(out, fetch_all(t, c(0)));
    }
    for (size_t t = 0; t < plan_.tiles.size(); ++t) append(body, deposit_all(t));
  } else {
    for (size_t t = 0; t < plan_.tiles.size(); ++t) body.push_back(stage(t));
  }
  body.push_back(loop::barrier());
  if (prefetch) {
    // The next chunk's elements; past the end of k they are zeros, as at an edge.
    for (size_t t = 0; t < plan_.tiles.size(); ++t) {
      append(body, fetch_all(t, add(loop::var(kChunk), c(c_.bk))));
    }
  }
  body.push_back(compute());
  body.push_back(loop::barrier());
  out.push_back(counted(kChunk, c(0), trips, c_.bk, std::move(body)));
  return out;
}

int64_t TiledBuilder::stage_steps(size_t tile) const {
  const int64_t threads = int64_t{c_.tx} * c_.ty;
  return (stage_elements(tile) + threads - 1) / threads;
}

int64_t TiledBuilder::stage_elements(size_t tile) const {
  const StagedTile& t = plan_.tiles[tile];
  return c_.bk * (t.load.side == LoadSide::kK ? 1 : side_extent(t));
}

bool TiledBuilder::prefetched() const {
  return staged_per_thread(plan_.problem, c_) <= kMaxStagedPerThread;  // the search keeps to it
}

// Element e = tid + step * threads of a tile: k position kk and side position s, the side
// fastest, or k fastest when the load is contiguous along k, so that neighbouring work-items
// read neighbouring addresses.
TiledBuilder::Element TiledBuilder::element(size_t tile, ExprPtr step) const {
  const StagedTile& t = plan_.tiles[tile];
  const int64_t threads = int64_t{c_.tx} * c_.ty;
  Element el;
  el.e = add(tid(), mul(std::move(step), threads));
  el.kk = el.e;
  el.side = c(0);
  if (t.load.side == LoadSide::kK) return el;
  const int64_t row = side_extent(t);
  if (t.k_fastest) {
    el.kk = index_op(ir::OpKind::Mod, el.e, c(c_.bk));
    el.side = index_op(ir::OpKind::Div, el.e, c(c_.bk));
  } else {
    el.kk = index_op(ir::OpKind::Div, el.e, c(row));
    el.side = index_op(ir::OpKind::Mod, el.e, c(row));
  }
  return el;
}

// v = the load at element `el` of the chunk at `k0` where it lies inside the extents and the
// guards that protect this access hold; elsewhere v = 0: the zero fill, which the point's
// guards skip again at compute time, or which stands for them (TiledPlan::zero_fill).
std::vector<StmtPtr> TiledBuilder::fetch(size_t tile, const Element& el, int64_t step, ExprPtr k0,
                                         const std::string& v) const {
  const StagedTile& t = plan_.tiles[tile];
  const ExprPtr k_at = add(std::move(k0), el.kk);
  ExprPtr in_range = less(k_at, c(loop::trip_count(form_.k_loop())));
  Bindings at = uniform_;
  at[form_.k_loop().var] = value_of(form_.k_loop(), k_at);
  if (t.load.side != LoadSide::kK) {
    const bool m_side = t.load.side == LoadSide::kM;
    ExprPtr side_at = add(mul(id(group_id(m_side ? 1 : 0)), m_side ? c_.bm() : c_.bn()), el.side);
    if (m_side) {
      in_range = both(in_range, less(side_at, c(form_.m_extent())));
      bind_m(side_at, at);
    } else {
      in_range = both(in_range, less(side_at, c(loop::trip_count(form_.n_loop()))));
      at[form_.n_loop().var] = value_of(form_.n_loop(), side_at);
    }
  }
  Bindings guard_at = at;
  if (step >= 0 && hoists_sides(tile)) {
    for (const std::string& var : guarded_m_vars(tile)) {
      guard_at[var] = loop::var(side_local(tile, step, var));
    }
  }
  ExprPtr safe;
  for (const ExprPtr& g : t.safety) safe = both(safe, loop::substitute(g, guard_at));
  // A copy of the load's root, so that the kernel owns every node it holds.
  std::vector<StmtPtr> read = {
      loop::assign(v, loop::substitute(std::make_shared<loop::Expr>(*t.load.load), at))};
  if (StmtPtr note = note_not_finite(tile, v)) read.push_back(std::move(note));
  if (safe) read = {loop::if_then(safe, std::move(read))};
  return {loop::assign(v, loop::zero(tile_dtype(tile))), loop::if_then(in_range, std::move(read))};
}

std::vector<std::string> TiledBuilder::guarded_m_vars(size_t tile) const {
  std::vector<std::string> out;
  const StagedTile& t = plan_.tiles[tile];
  if (t.load.side != LoadSide::kM) return out;
  for (const Stmt* m : form_.m_loops()) {
    for (const ExprPtr& g : t.safety) {
      if (loop::mentions(*g, m->var)) {
        out.push_back(m->var);
        break;
      }
    }
  }
  return out;
}

bool TiledBuilder::hoists_sides(size_t tile) const {
  const size_t vars = guarded_m_vars(tile).size();
  return prefetched() && vars > 0 && stage_steps(tile) * static_cast<int64_t>(vars) <= 16;
}

std::vector<StmtPtr> TiledBuilder::decoded_sides() const {
  std::vector<StmtPtr> out;
  for (size_t t = 0; t < plan_.tiles.size(); ++t) {
    if (!hoists_sides(t)) continue;
    for (int64_t i = 0; i < stage_steps(t); ++i) {
      Bindings b;
      bind_m(add(mul(id(group_id(1)), c_.bm()), element(t, c(i)).side), b);
      for (const std::string& var : guarded_m_vars(t)) {
        out.push_back(loop::declare(side_local(t, i, var), b.at(var)));
      }
    }
  }
  return out;
}

StmtPtr TiledBuilder::deposit(size_t tile, const Element& el, const std::string& v) const {
  const StagedTile& t = plan_.tiles[tile];
  ExprPtr at = t.load.side == LoadSide::kK ? el.kk : add(mul(el.kk, width(t)), el.side);
  return loop::store(workgroup_slot(tile), std::move(at), loop::var(v, tile_dtype(tile)));
}

// Statements for element `e` of a tile: only where e < elements when the steps overrun it.
std::vector<StmtPtr> TiledBuilder::within(size_t tile, const Element& el,
                                          std::vector<StmtPtr> body) const {
  const int64_t elements = stage_elements(tile);
  const int64_t threads = int64_t{c_.tx} * c_.ty;
  if (elements % threads == 0) return body;
  return {loop::if_then(less(el.e, c(elements)), std::move(body))};
}

std::vector<StmtPtr> TiledBuilder::fetch_all(size_t tile, const ExprPtr& k0) const {
  std::vector<StmtPtr> out;
  for (int64_t i = 0; i < stage_steps(tile); ++i) {
    const Element el = element(tile, c(i));
    append(out, within(tile, el, fetch(tile, el, i, k0, staged_register(tile, i))));
  }
  return out;
}

std::vector<StmtPtr> TiledBuilder::deposit_all(size_t tile) const {
  std::vector<StmtPtr> out;
  for (int64_t i = 0; i < stage_steps(tile); ++i) {
    const Element el = element(tile, c(i));
    append(out, within(tile, el, {deposit(tile, el, staged_register(tile, i))}));
  }
  return out;
}

// All work-items fill the tile, element e = tid + i * threads for a constant number of steps i
// (unrolled), each through the local v.
StmtPtr TiledBuilder::stage(size_t tile) const {
  const int64_t steps = stage_steps(tile);
  const std::string step = fmt::format("@s{}", tile);
  const std::string v = fmt::format("@v{}", tile);
  const Element el = element(tile, loop::var(step));
  std::vector<StmtPtr> body = {loop::declare(v, loop::zero(tile_dtype(tile)))};
  append(body, fetch(tile, el, -1, loop::var(kChunk), v));
  body.push_back(deposit(tile, el, v));
  return counted(step, c(0), c(steps), 1, within(tile, el, std::move(body)),
                 steps > 1 ? static_cast<int>(steps) : 0);
}

// The staged operands of one k step read from the tiles once: RM values of each m-side tile,
// RN of each n-side tile, one of a k-only tile. The RM x RN points then use them.
std::vector<StmtPtr> TiledBuilder::operand_registers() const {
  std::vector<StmtPtr> out;
  const ExprPtr kk = loop::var(kKStep);
  for (size_t i = 0; i < plan_.tiles.size(); ++i) {
    const StagedTile& t = plan_.tiles[i];
    for (int r = 0; r < operand_register_count(t, c_); ++r) {
      ExprPtr index = kk;
      if (t.load.side == LoadSide::kM) {
        index = add(mul(kk, width(t)), grouped(c(r), local_id(1), c_.ty, c_.rm));
      } else if (t.load.side == LoadSide::kN) {
        index = add(mul(kk, width(t)), grouped(c(r), local_id(0), c_.tx, c_.rn));
      }
      out.push_back(loop::declare(
          operand(i, r), loop::load(workgroup_slot(i), t.load.load->dtype, std::move(index))));
    }
  }
  return out;
}

// The point guards that do not read k hold or fail for a whole chunk loop: they are evaluated
// once before it, with the point's validity (unless TiledPlan::extent_free_points), as one bool
// per m point where none reads n (rather than one per point: a register each), else one per
// point.
bool TiledBuilder::guards_by_m() const {
  for (const ExprPtr& g : plan_.point_guards) {
    if (loop::mentions(*g, form_.n_loop().var)) return false;
  }
  return true;
}

std::vector<StmtPtr> TiledBuilder::hoisted_guards() const {
  std::vector<StmtPtr> out;
  if (plan_.unguarded_points || plan_.zero_fill) return out;
  const bool by_m = guards_by_m();
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < (by_m ? 1 : c_.rn); ++rn) {
      const Bindings b = point(rm, rn);
      ExprPtr cond;
      if (!plan_.extent_free_points) {
        cond = by_m ? (form_.has_m() ? less(m_at(rm), c(form_.m_extent())) : nullptr)
                    : point_valid(rm, rn);
      }
      for (const ExprPtr& g : plan_.point_guards) {
        if (!loop::mentions(*g, form_.k_loop().var)) cond = both(cond, loop::substitute(g, b));
      }
      if (!cond) cond = loop::int_const(1, DType::Bool);
      out.push_back(loop::declare(guard_name(rm, by_m ? -1 : rn), cond));
    }
  }
  return out;
}

ExprPtr TiledBuilder::hoisted_guard(int rm, int rn) const {
  if (!guards_by_m()) return loop::var(guard_name(rm, rn), DType::Bool);
  ExprPtr by_m = loop::var(guard_name(rm, -1), DType::Bool);
  if (plan_.extent_free_points) return by_m;
  return both(std::move(by_m), less(n_at(rn), c(loop::trip_count(form_.n_loop()))));
}

// Every point of the register block, in the reference's order along k; the guards of the path
// (other than the uniform ones) are evaluated here, at each point, unless the plan has none
// (TiledPlan::unguarded_points): those that read k at each step, the others once before the
// chunk loop (hoisted_guards).
StmtPtr TiledBuilder::compute() const {
  const int64_t k = loop::trip_count(form_.k_loop());
  const bool whole = k % c_.bk == 0;  // a constant trip count, unrolled
  ExprPtr steps = c(c_.bk);
  if (!whole) {
    steps = index_op(ir::OpKind::Min, c(c_.bk), index_op(ir::OpKind::Sub, c(k), loop::var(kChunk)));
  }
  std::vector<StmtPtr> body = operand_registers();
  Bindings at_k = uniform_;
  at_k[form_.k_loop().var] = value_of(form_.k_loop(), add(loop::var(kChunk), loop::var(kKStep)));
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      std::map<std::string, ExprPtr> staged;
      for (size_t i = 0; i < plan_.tiles.size(); ++i) {
        const StagedTile& t = plan_.tiles[i];
        staged[t.load.key] =
            loop::var(operand(i, operand_register_index(t, rm, rn)), t.load.load->dtype);
      }
      Bindings b = point(rm, rn);
      b.insert(at_k.begin(), at_k.end());
      ExprPtr value = loop::substitute(replace_staged(form_.assign->value, staged), b);
      StmtPtr update = loop::assign(acc(rm, rn), std::move(value));
      if (!plan_.unguarded_points && !plan_.zero_fill) {
        ExprPtr cond = hoisted_guard(rm, rn);
        for (const ExprPtr& g : plan_.point_guards) {
          if (loop::mentions(*g, form_.k_loop().var)) cond = both(cond, loop::substitute(g, b));
        }
        update = loop::if_then(cond, {update});
      }
      body.push_back(std::move(update));
    }
  }
  return counted(kKStep, c(0), steps, 1, std::move(body), whole ? c_.bk : 0);
}

std::vector<StmtPtr> TiledBuilder::epilogue() const {
  std::vector<StmtPtr> out;
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      const Bindings b = point(rm, rn);
      std::vector<StmtPtr> stmts;
      for (const Stmt* s : form_.epilogue) stmts.push_back(rebind(*s, b));
      out.push_back(loop::if_then(point_valid(rm, rn), std::move(stmts)));
    }
  }
  return out;
}

// flag != 0 (Ne) or flag == 0 (Eq).
ExprPtr TiledBuilder::flag_read(ir::OpKind compare) const {
  return loop::op(compare, DType::Bool,
                  {loop::load(flag_slot(), DType::I32, c(0)), loop::int_const(0, DType::I32)});
}

// Cleared by one work-item; the barrier orders it before any work-item raises it.
std::vector<StmtPtr> TiledBuilder::clear_flag() const {
  return {loop::declare(kNotFinite, loop::int_const(0, DType::Bool)),
          loop::if_then(loop::op(ir::OpKind::Eq, DType::Bool, {tid(), c(0)}),
                        {loop::store(flag_slot(), c(0), loop::int_const(0, DType::I32))}),
          loop::barrier()};
}

// After a value of the checked tile is read from global memory: nonfinite |= isnan | isinf.
StmtPtr TiledBuilder::note_not_finite(size_t tile, const std::string& v) const {
  if (!checks_finite() || *plan_.zero_fill->checked_tile != tile) return nullptr;
  const ExprPtr value = loop::var(v, tile_dtype(tile));
  ExprPtr bad = loop::op(ir::OpKind::BitOr, DType::Bool,
                         {loop::op(ir::OpKind::IsNan, DType::Bool, {value}),
                          loop::op(ir::OpKind::IsInf, DType::Bool, {value})});
  return loop::assign(kNotFinite, loop::op(ir::OpKind::BitOr, DType::Bool,
                                           {loop::var(kNotFinite, DType::Bool), std::move(bad)}));
}

// The flag is raised by any work-item that saw a non-finite value and read by all after a
// barrier, so the branch is uniform across the workgroup. Work-items that raise it store the
// same 1 without an atomic: a race of equal values, as cheap as a flag can be, on every driver
// tried (PoCL, lavapipe, NVIDIA's OpenCL and Vulkan).
std::vector<StmtPtr> TiledBuilder::exact_if_flagged() const {
  std::vector<StmtPtr> out = {
      loop::if_then(loop::var(kNotFinite, DType::Bool),
                    {loop::store(flag_slot(), c(0), loop::int_const(1, DType::I32))}),
      loop::barrier()};
  out.push_back(loop::declare(kFlagged, flag_read(ir::OpKind::Ne)));
  out.push_back(loop::if_then(loop::var(kFlagged, DType::Bool), {exact_points()}));
  out.push_back(loop::declare(kClean, flag_read(ir::OpKind::Eq)));
  out.push_back(loop::if_then(loop::var(kClean, DType::Bool), epilogue()));
  return out;
}

// Each point of the work-item in turn (a loop, not unrolled: this path is rare), computed as
// the reference does: the accumulator's start, the reduction's loops and guards as lowered,
// reading global memory, then the epilogue.
StmtPtr TiledBuilder::exact_points() const {
  const ExprPtr p = loop::var(kExactPoint);
  const ExprPtr rm = index_op(ir::OpKind::Div, p, c(c_.rn));
  const ExprPtr rn = index_op(ir::OpKind::Mod, p, c(c_.rn));
  const DType dtype = form_.declare->value->dtype;
  const Bindings b = point(rm, rn, loop::var(kExactAcc, dtype));
  std::vector<StmtPtr> stmts = {loop::declare(kExactAcc, loop::substitute(form_.declare->value, b)),
                                rebind(*form_.path.front(), b)};
  for (const Stmt* s : form_.epilogue) stmts.push_back(rebind(*s, b));
  return counted(kExactPoint, c(0), c(int64_t{c_.rm} * c_.rn), 1,
                 {loop::if_then(point_valid(rm, rn), std::move(stmts))});
}

}  // namespace

GpuKernel build_tiled_kernel(const loop::Kernel& kernel, const TiledPlan& plan,
                             const TileChoice& tiles, const LaunchDims& launch) {
  GpuKernel out = scheduled_from(kernel);
  TiledBuilder builder(plan, tiles);
  out.kernel.body = loop::block(builder.body());
  for (const StagedTile& t : plan.tiles) {
    out.arrays.push_back(WorkgroupArray{t.name, t.load.load->dtype, tiles.bk * tile_row(t, tiles)});
  }
  if (plan.checks_finite()) out.arrays.push_back(WorkgroupArray{"nonfinite_seen", DType::I32, 1});
  out.launch = launch;
  return out;
}

}  // namespace plaidml::jit::gpu
