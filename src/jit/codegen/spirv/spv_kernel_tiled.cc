// The tiled contraction kernel in SPIR-V (spv_kernel.h), the twin of the OpenCL generator's
// cl_kernel_tiled.cc over the same plan (jit/codegen/gpu/tiled_layout.h): an output tile of
// BM x BN points per workgroup, TX x TY invocations with an RM x RN register block each
// (invocation (tx, ty) owns n = n0 + tx + rn*TX, m = m0 + ty + rm*TY), the innermost reduction
// loop k walked in chunks of BK whose loads are staged through Workgroup arrays by all
// invocations (stage, barrier, compute, barrier). Every statement of the loop IR is emitted as
// written (SpvEmitter), with variables bound to the point's values, so any aggregation,
// combination, guard and epilogue keeps its exact semantics.
//
// Barriers sit only in workgroup-uniform control flow: the serial reduction loops and the
// chunk loop have trip counts every invocation agrees on (a failing uniform guard sets the
// chunk loop's trip count to zero instead of skipping it), and every per-point condition is a
// selection nested inside the compute loop, never around a barrier.
#include <fmt/format.h>

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "jit/codegen/gpu/tiled_layout.h"
#include "jit/codegen/spirv/spv_kernel.h"
#include "jit/loop/printer.h"

namespace plaidml::jit::spirv {

using gpu::LoadSide;
using gpu::RegisterForm;
using gpu::StagedTile;
using gpu::TileChoice;
using gpu::TiledPlan;
using loop::Stmt;
using loop::StmtKind;
using spv::Op;

namespace {

class TiledEmitter {
 public:
  TiledEmitter(const TiledPlan& plan, const TileChoice& tiles, SpvEmitter& emitter, SpvBuilder& b,
               Builtins& builtins)
      : plan_(plan),
        form_(plan.form),
        c_(tiles),
        e_(emitter),
        s_(emitter.scalar()),
        b_(b),
        builtins_(builtins),
        i32_(b.type_int(32, true)),
        ix_(emitter.index_type()),
        bool_(b.type_bool()) {}

  // The function body (the caller opens and closes the function).
  void emit(const std::string& kernel_name);

 private:
  Id c32(int64_t v) { return b_.const_int(32, true, static_cast<uint64_t>(v)); }
  Id cx(int64_t v) { return e_.index_const(v); }  // in the index type
  Id op(Op code, Id type, std::vector<uint32_t> args) { return b_.op(code, type, args); }
  // A non-negative i32 (an invocation coordinate or tile position) in the index type. Into i64
  // zero-extended (SpvEmitter::widen): lavapipe miscompiles OpSConvert of an OpSDiv result
  // (the staged k came out of range).
  Id widen(Id i32) { return e_.index32() ? i32 : e_.widen(i32, true); }
  Id all(const std::vector<Id>& conds);  // their conjunction; true when empty
  // lo + position * step of a loop of constant bounds (position: the index type).
  Id value_of(const Stmt& loop, Id position);

  void ids();
  void points();
  void tile_arrays(const std::string& kernel_name);
  void accumulators();
  // The reduction loops and uniform guards outside k from path position `i` on, then the
  // chunk loop; `uniform` holds the uniform guards met so far.
  void reduction(size_t i, std::vector<Id>& uniform);
  void chunk_loop(Id trips);
  void stage(size_t tile, Id k0);
  void stage_element(size_t tile, Id k0, Id e, Id v);
  void fetch(const StagedTile& t, Id k_at, Id side, Id v);
  void compute(Id k0);
  void epilogue();
  // Binds the band variables m and n and the accumulator to the point (rm, rn).
  void bind_point(int rm, int rn);
  Id point_valid(int rm, int rn);
  int64_t width(const StagedTile& t) const;  // a tile row: its side's extent plus one pad
  Id tile_pointer(size_t tile, Id index);
  std::vector<std::vector<Id>> operand_registers(Id kk);
  std::optional<Id> staged_operand(const loop::Expr& load,
                                   const std::vector<std::vector<Id>>& registers, int rm, int rn);

  const TiledPlan& plan_;
  const RegisterForm& form_;
  TileChoice c_;
  SpvEmitter& e_;
  SpvScalar& s_;
  SpvBuilder& b_;
  Builtins& builtins_;
  Id i32_, ix_, bool_;  // ix_: the index type (SpvEmitter::index_type)
  Id tx_ = 0, ty_ = 0, tid_ = 0;       // i32 invocation coordinates
  Id n0_ = 0, m0_ = 0;                 // tile origins (band positions) in the index type
  std::vector<Id> pn_, nv_, pm_, mv_;  // point values and validity per rn / rm
  std::vector<Id> tiles_;              // Workgroup variable per plan tile
  std::vector<std::vector<Id>> acc_;   // Function variable per (rm, rn)
};

Id TiledEmitter::all(const std::vector<Id>& conds) {
  if (conds.empty()) return b_.const_bool(true);
  Id out = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) out = op(Op::OpLogicalAnd, bool_, {out, conds[i]});
  return out;
}

Id TiledEmitter::value_of(const Stmt& loop, Id position) {
  Id v = loop.step == 1 ? position : op(Op::OpIMul, ix_, {position, cx(loop.step)});
  return loop.lo->int_value == 0 ? v : op(Op::OpIAdd, ix_, {v, cx(loop.lo->int_value)});
}

Id TiledEmitter::point_valid(int rm, int rn) {
  return form_.has_m() ? op(Op::OpLogicalAnd, bool_, {mv_[rm], nv_[rn]}) : nv_[rn];
}

void TiledEmitter::bind_point(int rm, int rn) {
  e_.bind_value(form_.n_loop().var, pn_[rn]);
  if (form_.has_m()) e_.bind_value(form_.m_loop().var, pm_[rm]);
  e_.bind_pointer(form_.declare->var, acc_[rm][rn], form_.declare->value->dtype);
}

int64_t TiledEmitter::width(const StagedTile& t) const {
  // One element of padding: a column walk (k fastest) then hits different banks.
  return (t.load.side == LoadSide::kM ? c_.bm() : c_.bn()) + 1;
}

// Invocation and workgroup coordinates; the band loops other than m and n take one workgroup
// per value along z, decoded innermost first.
void TiledEmitter::ids() {
  std::array<Id, 3> local = builtins_.load(spv::BuiltIn::LocalInvocationId);
  tx_ = op(Op::OpBitcast, i32_, {local[0]});
  ty_ = op(Op::OpBitcast, i32_, {local[1]});
  tid_ = op(Op::OpIAdd, i32_, {op(Op::OpIMul, i32_, {ty_, c32(c_.tx)}), tx_});
  std::array<Id, 3> group = builtins_.load(spv::BuiltIn::WorkgroupId);
  auto wide = [&](Id u32) { return widen(op(Op::OpBitcast, i32_, {u32})); };
  n0_ = op(Op::OpIMul, ix_, {wide(group[0]), cx(c_.bn())});
  m0_ = op(Op::OpIMul, ix_, {wide(group[1]), cx(c_.bm())});
  if (form_.uniform_band_count() == 0) return;
  Id g2 = wide(group[2]);  // non-negative: SRem and SDiv are exact
  for (size_t i = form_.uniform_band_count(); i-- > 0;) {
    const Stmt& loop = *form_.band[i];
    Id trips = cx(loop::trip_count(loop));
    e_.bind_value(loop.var, value_of(loop, op(Op::OpSRem, ix_, {g2, trips})));
    g2 = op(Op::OpSDiv, ix_, {g2, trips});
  }
}

void TiledEmitter::points() {
  const Id n_extent = cx(loop::trip_count(form_.n_loop()));
  for (int rn = 0; rn < c_.rn; ++rn) {
    Id at = op(Op::OpIAdd, ix_, {n0_, widen(op(Op::OpIAdd, i32_, {tx_, c32(rn * c_.tx)}))});
    pn_.push_back(value_of(form_.n_loop(), at));
    nv_.push_back(op(Op::OpSLessThan, bool_, {at, n_extent}));
  }
  if (!form_.has_m()) return;
  const Id m_extent = cx(loop::trip_count(form_.m_loop()));
  for (int rm = 0; rm < c_.rm; ++rm) {
    Id at = op(Op::OpIAdd, ix_, {m0_, widen(op(Op::OpIAdd, i32_, {ty_, c32(rm * c_.ty)}))});
    pm_.push_back(value_of(form_.m_loop(), at));
    mv_.push_back(op(Op::OpSLessThan, bool_, {at, m_extent}));
  }
}

// One flat Workgroup array per tile: [BK][width] row-major, or [BK] for a k-only tile. The
// module holds this kernel alone (spirv_codegen.h), so its Workgroup variables are this
// kernel's tiles: no driver can charge it for another kernel's.
void TiledEmitter::tile_arrays(const std::string& kernel_name) {
  for (const StagedTile& t : plan_.tiles) {
    int64_t elements = t.load.side == LoadSide::kK ? c_.bk : c_.bk * width(t);
    Id array = b_.type_array(s_.value_type(t.load.load->dtype), static_cast<uint32_t>(elements));
    Id var = b_.global_variable(b_.type_pointer(spv::StorageClass::Workgroup, array),
                                spv::StorageClass::Workgroup);
    b_.name(var, fmt::format("{}_{}", kernel_name, t.name));
    tiles_.push_back(var);
  }
}

Id TiledEmitter::tile_pointer(size_t tile, Id index) {
  Id elem = s_.value_type(plan_.tiles[tile].load.load->dtype);
  return op(Op::OpAccessChain, b_.type_pointer(spv::StorageClass::Workgroup, elem),
            {tiles_[tile], index});
}

// Points outside the output extents keep a zero and never touch memory.
void TiledEmitter::accumulators() {
  const DType t = form_.declare->value->dtype;
  acc_.assign(static_cast<size_t>(c_.rm), std::vector<Id>(static_cast<size_t>(c_.rn), 0));
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      Id acc = b_.local_variable(s_.value_type(t));
      acc_[rm][rn] = acc;
      b_.op_void(Op::OpStore, {acc, s_.int_const(t, 0)});
      bind_point(rm, rn);
      b_.if_then(point_valid(rm, rn), [&] {
        b_.op_void(Op::OpStore, {acc, e_.expr(*form_.declare->value)});
      });
    }
  }
}

void TiledEmitter::reduction(size_t i, std::vector<Id>& uniform) {
  if (i == form_.k_pos) {
    Id trips = cx(loop::trip_count(form_.k_loop()));
    if (!uniform.empty()) trips = op(Op::OpSelect, ix_, {all(uniform), trips, cx(0)});
    chunk_loop(trips);
    return;
  }
  const Stmt& s = *form_.path[i];
  if (s.kind == StmtKind::kFor) {
    Id counter = b_.local_variable(ix_);
    b_.op_void(Op::OpStore, {counter, cx(s.lo->int_value)});
    b_.counted_loop(
        counter, ix_, [&] { return cx(s.hi->int_value); }, cx(s.step),
        [&] {
          e_.bind_pointer(s.var, counter, e_.index_dtype());
          reduction(i + 1, uniform);
        });
    return;
  }
  if (plan_.uniform_ifs.count(i) == 0) {  // a point guard: evaluated in compute()
    reduction(i + 1, uniform);
    return;
  }
  uniform.push_back(e_.expr(*s.cond));
  reduction(i + 1, uniform);
  uniform.pop_back();
}

void TiledEmitter::chunk_loop(Id trips) {
  Id k0 = b_.local_variable(ix_);
  b_.op_void(Op::OpStore, {k0, cx(0)});
  b_.counted_loop(
      k0, ix_, [&] { return trips; }, cx(c_.bk),
      [&] {
        Id k0_value = op(Op::OpLoad, ix_, {k0});
        for (size_t t = 0; t < plan_.tiles.size(); ++t) stage(t, k0_value);
        b_.workgroup_barrier();
        compute(k0_value);
        b_.workgroup_barrier();
      });
}

// All invocations fill the tile, element e = tid, tid + threads, ...
void TiledEmitter::stage(size_t tile, Id k0) {
  const StagedTile& t = plan_.tiles[tile];
  const int64_t row = t.load.side == LoadSide::kK ? 1 : width(t) - 1;  // padding aside
  Id e = b_.local_variable(i32_);
  Id v = b_.local_variable(s_.value_type(t.load.load->dtype));
  b_.op_void(Op::OpStore, {e, tid_});
  b_.counted_loop(
      e, i32_, [&] { return c32(c_.bk * row); }, c32(c_.tx * c_.ty),
      [&] { stage_element(tile, k0, op(Op::OpLoad, i32_, {e}), v); });
}

// Element `e` of a tile: its k and side positions (the side fastest, or k fastest when the
// load is contiguous along k, so that neighbouring invocations read neighbouring addresses),
// fetched into the Function variable `v`, then stored to the Workgroup array.
void TiledEmitter::stage_element(size_t tile, Id k0, Id e, Id v) {
  const StagedTile& t = plan_.tiles[tile];
  const bool sided = t.load.side != LoadSide::kK;
  Id kk = e, side = c32(0);
  if (sided && t.k_fastest) {
    kk = op(Op::OpSRem, i32_, {e, c32(c_.bk)});
    side = op(Op::OpSDiv, i32_, {e, c32(c_.bk)});
  } else if (sided) {
    kk = op(Op::OpSDiv, i32_, {e, c32(width(t) - 1)});
    side = op(Op::OpSRem, i32_, {e, c32(width(t) - 1)});
  }
  b_.op_void(Op::OpStore, {v, s_.int_const(t.load.load->dtype, 0)});
  fetch(t, op(Op::OpIAdd, ix_, {k0, widen(kk)}), side, v);
  Id index = sided ? op(Op::OpIAdd, i32_, {op(Op::OpIMul, i32_, {kk, c32(width(t))}), side}) : kk;
  Id value = op(Op::OpLoad, s_.value_type(t.load.load->dtype), {v});
  b_.op_void(Op::OpStore, {tile_pointer(tile, index), value});
}

// v = the load at k position `k_at` and tile position `side`, where it is inside the extents
// and the guards that protect this access hold; elsewhere v keeps 0 (never used: the point's
// guards are evaluated again at compute time).
void TiledEmitter::fetch(const StagedTile& t, Id k_at, Id side, Id v) {
  const bool sided = t.load.side != LoadSide::kK;
  const Stmt& side_loop = t.load.side == LoadSide::kM ? form_.m_loop() : form_.n_loop();
  std::vector<Id> in_range = {
      op(Op::OpSLessThan, bool_, {k_at, cx(loop::trip_count(form_.k_loop()))})};
  Id side_at = 0;
  if (sided) {
    side_at = op(Op::OpIAdd, ix_, {t.load.side == LoadSide::kM ? m0_ : n0_, widen(side)});
    in_range.push_back(op(Op::OpSLessThan, bool_, {side_at, cx(loop::trip_count(side_loop))}));
  }
  b_.if_then(all(in_range), [&] {
    e_.bind_value(form_.k_loop().var, value_of(form_.k_loop(), k_at));
    if (sided) e_.bind_value(side_loop.var, value_of(side_loop, side_at));
    std::vector<Id> safe;
    for (const auto& g : t.safety) safe.push_back(e_.expr(*g));
    b_.if_then(all(safe), [&] { b_.op_void(Op::OpStore, {v, e_.expr(*t.load.load)}); });
  });
}

// The staged operands of k step `kk` read from the tiles once: RM values of each m-side tile,
// RN of each n-side tile, one of a k-only tile (registers[tile][r]).
std::vector<std::vector<Id>> TiledEmitter::operand_registers(Id kk) {
  std::vector<std::vector<Id>> registers;
  for (size_t i = 0; i < plan_.tiles.size(); ++i) {
    const StagedTile& t = plan_.tiles[i];
    const Id row = op(Op::OpIMul, i32_, {kk, c32(width(t))});
    std::vector<Id> values;
    for (int r = 0; r < gpu::operand_register_count(t, c_); ++r) {
      Id index = kk;
      if (t.load.side == LoadSide::kM) {
        index = op(Op::OpIAdd, i32_, {row, op(Op::OpIAdd, i32_, {ty_, c32(r * c_.ty)})});
      } else if (t.load.side == LoadSide::kN) {
        index = op(Op::OpIAdd, i32_, {row, op(Op::OpIAdd, i32_, {tx_, c32(r * c_.tx)})});
      }
      values.push_back(
          op(Op::OpLoad, s_.value_type(t.load.load->dtype), {tile_pointer(i, index)}));
    }
    registers.push_back(std::move(values));
  }
  return registers;
}

// The register of the staged load `load` for point (rm, rn); nullopt for a global load.
std::optional<Id> TiledEmitter::staged_operand(const loop::Expr& load,
                                               const std::vector<std::vector<Id>>& registers,
                                               int rm, int rn) {
  const std::string key = loop::to_string(load);
  for (size_t i = 0; i < plan_.tiles.size(); ++i) {
    const StagedTile& t = plan_.tiles[i];
    if (t.load.key != key) continue;
    return registers[i][static_cast<size_t>(gpu::operand_register_index(t, rm, rn))];
  }
  return std::nullopt;
}

// Every point of the register block, in the reference's order along k; the guards of the
// path (other than the uniform ones) are evaluated here, at each point, unless the plan has
// none (TiledPlan::unguarded_points).
void TiledEmitter::compute(Id k0) {
  const int64_t k_extent = loop::trip_count(form_.k_loop());
  Id chunk = c32(c_.bk);
  if (k_extent % c_.bk != 0) {  // the last chunk is short
    Id left = op(Op::OpISub, ix_, {cx(k_extent), k0});
    Id shorter = op(Op::OpSLessThan, bool_, {left, cx(c_.bk)});
    chunk = op(Op::OpSelect, ix_, {shorter, left, cx(c_.bk)});
    if (!e_.index32()) chunk = op(Op::OpSConvert, i32_, {chunk});
  }
  Id kk = b_.local_variable(i32_);
  b_.op_void(Op::OpStore, {kk, c32(0)});
  b_.counted_loop(
      kk, i32_, [&] { return chunk; }, c32(1),
      [&] {
        Id kk_value = op(Op::OpLoad, i32_, {kk});
        e_.bind_value(form_.k_loop().var,
                      value_of(form_.k_loop(), op(Op::OpIAdd, ix_, {k0, widen(kk_value)})));
        const std::vector<std::vector<Id>> registers = operand_registers(kk_value);
        for (int rm = 0; rm < c_.rm; ++rm) {
          for (int rn = 0; rn < c_.rn; ++rn) {
            bind_point(rm, rn);
            e_.set_load_hook([&](const loop::Expr& load) {
              return staged_operand(load, registers, rm, rn);
            });
            if (plan_.unguarded_points) {
              e_.stmt(*form_.assign);
            } else {
              std::vector<Id> cond = {point_valid(rm, rn)};
              for (const auto& g : plan_.point_guards) cond.push_back(e_.expr(*g));
              b_.if_then(all(cond), [&] { e_.stmt(*form_.assign); });
            }
            e_.set_load_hook(nullptr);
          }
        }
      },
      /*unroll=*/k_extent % c_.bk == 0);  // whole chunks: a constant trip count
}

void TiledEmitter::epilogue() {
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      bind_point(rm, rn);
      b_.if_then(point_valid(rm, rn), [&] {
        for (const Stmt* s : form_.epilogue) e_.stmt(*s);
      });
    }
  }
}

void TiledEmitter::emit(const std::string& kernel_name) {
  ids();
  points();
  tile_arrays(kernel_name);
  accumulators();
  std::vector<Id> uniform;
  reduction(0, uniform);
  epilogue();
}

}  // namespace

Expected<LaunchDims> emit_tiled_kernel(const loop::Kernel& kernel,
                                       const gpu::TiledSchedule& schedule,
                                       const SpirvTarget& target, SpvEmitter& emitter,
                                       SpvBuilder& b, Builtins& builtins) {
  Id fn = b.begin_function();
  emitter.scoped([&] {
    TiledEmitter(schedule.plan, schedule.tiles, emitter, b, builtins).emit(kernel.name);
  });
  b.op_void(Op::OpReturn, {});
  b.end_function();
  if (!emitter.status().is_ok()) {
    return emitter.status().with_context(fmt::format("Vulkan kernel '{}': ", kernel.name));
  }
  declare_entry(
      b, fn, kernel.name,
      {builtins.get(spv::BuiltIn::LocalInvocationId), builtins.get(spv::BuiltIn::WorkgroupId)},
      schedule.launch, target);
  return schedule.launch;
}

}  // namespace plaidml::jit::spirv
