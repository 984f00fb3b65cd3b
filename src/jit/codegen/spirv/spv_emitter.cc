// SpvEmitter (spv_emitter.h).
#include "jit/codegen/spirv/spv_emitter.h"

#include <optional>

#include <fmt/format.h>

namespace plaidml::jit::spirv {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;
using spv::Op;

namespace {

bool has_load(const Expr& e) {
  if (e.kind == ExprKind::kLoad) return true;
  for (const auto& a : e.args) {
    if (a && has_load(*a)) return true;
  }
  return false;
}

constexpr uint32_t kNoControl = 0;  // SelectionControl / LoopControl None

}  // namespace

SpvEmitter::SpvEmitter(const LoweredProgram& program, SpvScalar& scalar,
                       const std::vector<const gpu::GpuKernel*>& scheduled)
    : program_(program),
      scalar_(scalar),
      b_(scalar.builder()),
      ranges_(program, scheduled),
      index32_(ranges_.fits_int32()),
      narrow_access_(ranges_.slots_fit_int32()) {}

void SpvEmitter::fail(Status status) {
  if (status_.is_ok()) status_ = std::move(status);
}

void SpvEmitter::bind_value(const std::string& name, Id id) {
  bound_[name] = Binding{id, false, index_dtype()};
}

void SpvEmitter::bind_pointer(const std::string& name, Id ptr, DType t) {
  bound_[name] = Binding{ptr, true, t};
}

void SpvEmitter::scoped(const std::function<void()>& f) {
  std::map<std::string, Binding> saved = bound_;
  f();
  bound_ = std::move(saved);
}

// The variable's value as dtype `as`: an i32 loop variable is widened where the loop IR uses
// it as an i64 value that the ranges do not cover (a name some kernel also declares a local).
Id SpvEmitter::bound_value(const std::string& name, DType as) {
  auto it = bound_.find(name);
  if (it == bound_.end()) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: variable '{}' is not bound", name));
    return scalar_.int_const(as, 0);
  }
  const Binding& bnd = it->second;
  Id v = bnd.pointer ? b_.op(Op::OpLoad, scalar_.value_type(bnd.dtype), {bnd.id}) : bnd.id;
  return scalar_.cast(v, bnd.dtype, as);
}

Id SpvEmitter::var(const Expr& e) { return bound_value(e.name, e.dtype); }

std::optional<gpu::IndexRange> SpvEmitter::int32_range(const Expr& e) const {
  if (!index32_) return std::nullopt;
  return ranges_.range(e);
}

Id SpvEmitter::int32_index(const Expr& e) {
  if (e.kind == ExprKind::kConst) return scalar_.int_const(DType::I32, e.int_value);
  if (e.kind == ExprKind::kVar) return bound_value(e.name, DType::I32);
  Id i32 = b_.type_int(32, true);
  if (e.op == ir::OpKind::Select) {
    Id cond = expr(*e.args[0]);
    return b_.op(Op::OpSelect, i32, {cond, int32_index(*e.args[1]), int32_index(*e.args[2])});
  }
  Id a = int32_index(*e.args[0]);
  if (e.op == ir::OpKind::Neg) return b_.op(Op::OpSNegate, i32, {a});
  Id c = int32_index(*e.args[1]);
  switch (e.op) {
    case ir::OpKind::Min: return b_.ext(GLSLstd450SMin, i32, {a, c});
    case ir::OpKind::Max: return b_.ext(GLSLstd450SMax, i32, {a, c});
    case ir::OpKind::Add: return b_.op(Op::OpIAdd, i32, {a, c});
    case ir::OpKind::Sub: return b_.op(Op::OpISub, i32, {a, c});
    case ir::OpKind::Mul: return b_.op(Op::OpIMul, i32, {a, c});
    default: return int32_divide(e, a, c);
  }
}

// a / c or a % c of an index (e), c a positive constant (the ranges admit no other divisor).
// Where a >= 0 both are unsigned (OpUDiv, OpUMod: the same values, and a multiply-high and a
// shift where the signed forms need sign fix-ups: NVIDIA's Vulkan compiler, unlike its OpenCL
// one, does not prove the implicit GEMM's decoded positions non-negative by itself). Otherwise
// OpSDiv, and % as a - (a / c) * c, C's truncating remainder: Vulkan leaves OpSRem undefined
// for negative operands.
Id SpvEmitter::int32_divide(const Expr& e, Id a, Id c) {
  Id i32 = b_.type_int(32, true);
  const bool divide = e.op == ir::OpKind::Div;
  if (std::optional<gpu::IndexRange> r = int32_range(*e.args[0]); r && r->lo >= 0) {
    Id u32 = b_.type_int(32, false);
    Id ua = b_.op(Op::OpBitcast, u32, {a}), uc = b_.op(Op::OpBitcast, u32, {c});
    return b_.op(Op::OpBitcast, i32, {b_.op(divide ? Op::OpUDiv : Op::OpUMod, u32, {ua, uc})});
  }
  Id q = b_.op(Op::OpSDiv, i32, {a, c});
  if (divide) return q;
  return b_.op(Op::OpISub, i32, {a, b_.op(Op::OpIMul, i32, {q, c})});
}

// Non-negative values are zero-extended: lavapipe (Mesa 22.3) miscompiles some sign extensions
// of i32 results (an OpSConvert of an OpSDiv came out of range), and most indices are >= 0.
Id SpvEmitter::widen(Id i32, bool non_negative) {
  Id i64 = b_.type_int(64, true);
  if (!non_negative) return b_.op(Op::OpSConvert, i64, {i32});
  Id u32 = b_.op(Op::OpBitcast, b_.type_int(32, false), {i32});
  return b_.op(Op::OpBitcast, i64, {b_.op(Op::OpUConvert, b_.type_int(64, false), {u32})});
}

// In index32 programs an index the ranges do not cover (one that loads a gather index, say)
// runs in i64 and is narrowed: its value, an in-bounds index or a loop bound, fits int32.
Id SpvEmitter::index(const Expr& e) {
  if (int32_range(e)) return int32_index(e);
  Id v = expr(e);
  return index32_ ? scalar_.cast(v, e.dtype, DType::I32) : v;
}

Id SpvEmitter::element_pointer(int slot, const Expr& index_expr) {
  DType t = program_.slots.at(static_cast<size_t>(slot)).shape.dtype;
  Id i = index(index_expr);
  if (!index32_ && narrow_access_) i = b_.op(Op::OpSConvert, b_.type_int(32, true), {i});
  Id ptr = b_.type_pointer(spv::StorageClass::StorageBuffer, scalar_.storage_type(t));
  return b_.op(Op::OpAccessChain, ptr,
               {slot_vars_.at(static_cast<size_t>(slot)), b_.const_int(32, true, 0), i});
}

Id SpvEmitter::workgroup_pointer(int slot, const Expr& index_expr, const WorkgroupVar** array) {
  const size_t i = gpu::workgroup_array_index(slot);
  if (i >= workgroup_vars_.size()) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: workgroup array {} is not declared", i));
    *array = nullptr;
    return 0;
  }
  const WorkgroupVar& w = workgroup_vars_[i];
  *array = &w;
  // One statement each: the order in which function arguments are evaluated is unspecified
  // (GCC and clang differ), and both of these may allocate ids.
  Id element = w.stored() ? scalar_.storage_type(w.dtype) : scalar_.value_type(w.dtype);
  if (w.vectors()) element = b_.type_uvec4();
  const Id pointer = b_.type_pointer(spv::StorageClass::Workgroup, element);
  const Id at = index(index_expr);
  return b_.op(Op::OpAccessChain, pointer, {w.var, at});
}

Id SpvEmitter::load(const Expr& e) {
  if (gpu::is_workgroup_slot(e.slot)) {
    const WorkgroupVar* w = nullptr;
    Id ptr = workgroup_pointer(e.slot, *e.args[0], &w);
    if (ptr == 0) return scalar_.int_const(e.dtype, 0);
    Id value = w->stored() ? scalar_.from_storage(
                               w->dtype, b_.op(Op::OpLoad, scalar_.storage_type(w->dtype), {ptr}))
                         : b_.op(Op::OpLoad, scalar_.value_type(w->dtype), {ptr});
    return scalar_.cast(value, w->dtype, e.dtype);
  }
  DType t = program_.slots.at(static_cast<size_t>(e.slot)).shape.dtype;
  Id ptr = element_pointer(e.slot, *e.args[0]);
  Id stored = b_.op(Op::OpLoad, scalar_.storage_type(t), {ptr});
  return scalar_.cast(scalar_.from_storage(t, stored), t, e.dtype);
}

// select(c, a, b) as a selection construct with a phi, so that a guarded load (padding,
// gathers) runs only when its guard holds, as with C's ?: in the OpenCL code.
Id SpvEmitter::lazy_select(const Expr& e) {
  Id cond = expr(*e.args[0]);
  Id then_label = b_.new_id(), else_label = b_.new_id(), merge = b_.new_id();
  b_.op_void(Op::OpSelectionMerge, {merge, kNoControl});
  b_.op_void(Op::OpBranchConditional, {cond, then_label, else_label});
  b_.label(then_label);
  Id a = expr(*e.args[1]);
  Id a_block = b_.current_block();
  b_.op_void(Op::OpBranch, {merge});
  b_.label(else_label);
  Id c = expr(*e.args[2]);
  Id c_block = b_.current_block();
  b_.op_void(Op::OpBranch, {merge});
  b_.label(merge);
  return b_.op(Op::OpPhi, scalar_.value_type(e.dtype), {a, a_block, c, c_block});
}

std::optional<Id> SpvEmitter::fused_multiply_add(const Expr& e) {
  if (e.op != ir::OpKind::Add || e.dtype != DType::F32) return std::nullopt;
  for (size_t i : {0, 1}) {
    const Expr& m = *e.args[i];
    if (m.kind != ExprKind::kOp || m.op != ir::OpKind::Mul || m.dtype != DType::F32) continue;
    Id a = expr(*m.args[0]);
    Id b = expr(*m.args[1]);
    Id c = expr(*e.args[1 - i]);
    return b_.ext(GLSLstd450Fma, scalar_.value_type(DType::F32), {a, b, c});
  }
  return std::nullopt;
}

Id SpvEmitter::op(const Expr& e) {
  if (std::optional<Id> fused = fused_multiply_add(e)) return *fused;
  if (e.op == ir::OpKind::Select && (has_load(*e.args[1]) || has_load(*e.args[2]))) {
    return lazy_select(e);
  }
  DType operand = e.op == ir::OpKind::Select ? e.args[1]->dtype : e.args[0]->dtype;
  // Index comparisons (guards) in i32 when both sides are i32 index expressions.
  bool compare = ir::op_category(e.op) == ir::OpCategory::kCompare;
  bool in_int32 = compare && int32_range(*e.args[0]) && int32_range(*e.args[1]);
  if (in_int32) operand = DType::I32;
  std::vector<Id> args;
  for (const auto& a : e.args) args.push_back(in_int32 ? int32_index(*a) : expr(*a));
  Expected<Id> r = scalar_.op(e.op, operand, args);
  if (!r) {
    fail(r.status());
    return scalar_.int_const(e.dtype, 0);
  }
  return *r;
}

// A cast of an index expression converts its i32 value: the same value as the i64 one, so
// every cast but one to a 64-bit integer gives the same result without i64 code.
Id SpvEmitter::cast(const Expr& e) {
  const Expr& from = *e.args[0];
  bool to_int64 = !dtype_is_float(e.dtype) && dtype_bits(e.dtype) == 64;
  if (!to_int64 && int32_range(from)) {
    return scalar_.cast(int32_index(from), DType::I32, e.dtype);
  }
  return scalar_.cast(expr(from), from.dtype, e.dtype);
}

Id SpvEmitter::expr(const Expr& e) {
  // An I64 index-valued subexpression of a data expression runs in i32 and is widened once
  // (as the OpenCL printer's ((long)int-expression)); constants stay i64 constants.
  if (e.kind != ExprKind::kConst) {
    if (std::optional<gpu::IndexRange> r = int32_range(e)) {
      return widen(int32_index(e), r->lo >= 0);
    }
  }
  switch (e.kind) {
    case ExprKind::kConst: return scalar_.constant(e);
    case ExprKind::kVar: return var(e);
    case ExprKind::kLoad: return load(e);
    case ExprKind::kCast: return cast(e);
    case ExprKind::kOp: return op(e);
  }
  return scalar_.int_const(e.dtype, 0);
}

void SpvEmitter::body(const std::vector<loop::StmtPtr>& stmts) {
  std::map<std::string, std::optional<Binding>> saved;
  for (const auto& s : stmts) {
    if (s->kind == StmtKind::kDeclare && !saved.count(s->var)) {
      auto it = bound_.find(s->var);
      saved[s->var] = it == bound_.end() ? std::nullopt : std::optional(it->second);
    }
    if (s->kind == StmtKind::kDeclare) {
      declare(*s);
    } else {
      stmt(*s);
    }
  }
  for (auto& [name, value] : saved) {
    if (value) {
      bound_[name] = *value;
    } else {
      bound_.erase(name);
    }
  }
}

void SpvEmitter::declare(const Stmt& s) {
  // An index local is an i32 like a loop variable (IndexRanges::is_index_local).
  const bool index_local = index32_ && ranges_.is_index_local(s.var);
  DType t = index_local ? DType::I32 : s.value->dtype;
  // Before the name is rebound: `x = f(x)` is legal.
  Id init = index_local ? int32_index(*s.value) : expr(*s.value);
  Id ptr = b_.local_variable(scalar_.value_type(t));
  b_.op_void(Op::OpStore, {ptr, init});
  bound_[s.var] = Binding{ptr, true, t};
}

// var = lo; while (var < hi) { body; var += step; } as header -> condition -> body ->
// continue -> header, merging after the loop.
void SpvEmitter::for_loop(const Stmt& s) {
  std::optional<Binding> saved;
  if (auto it = bound_.find(s.var); it != bound_.end()) saved = it->second;
  Id type = index_type();
  Id lo = index(*s.lo);
  Id ptr = b_.local_variable(type);
  b_.op_void(Op::OpStore, {ptr, lo});
  // hi is emitted before the variable is bound: hi never names it.
  b_.counted_loop(
      ptr, type, [&] { return index(*s.hi); }, index_const(s.step),
      [&] {
        bound_[s.var] = Binding{ptr, true, index_dtype()};
        body(s.body);
      },
      /*unroll=*/s.unroll > 0);
  if (saved) {
    bound_[s.var] = *saved;
  } else {
    bound_.erase(s.var);
  }
}

void SpvEmitter::if_then(const Stmt& s) {
  b_.if_then(expr(*s.cond), [&] { body(s.body); });
}

void SpvEmitter::store(const Stmt& s) {
  if (gpu::is_workgroup_slot(s.slot)) {
    const WorkgroupVar* w = nullptr;
    Id ptr = workgroup_pointer(s.slot, *s.index, &w);
    if (ptr == 0 || copy_stored(s, ptr, *w)) return;
    Id value = scalar_.cast(expr(*s.value), s.value->dtype, w->dtype);
    b_.op_void(Op::OpStore, {ptr, w->stored() ? scalar_.to_storage(w->dtype, value) : value});
    return;
  }
  DType t = program_.slots.at(static_cast<size_t>(s.slot)).shape.dtype;
  Id value = scalar_.cast(expr(*s.value), s.value->dtype, t);
  Id ptr = element_pointer(s.slot, *s.index);
  b_.op_void(Op::OpStore, {ptr, scalar_.to_storage(t, value)});
}

bool SpvEmitter::copy_stored(const Stmt& s, Id to, const WorkgroupVar& array) {
  const Expr& v = *s.value;
  if (!array.stored() || v.kind != ExprKind::kLoad || gpu::is_workgroup_slot(v.slot) ||
      v.lanes != 1 || program_.slots.at(static_cast<size_t>(v.slot)).shape.dtype != array.dtype ||
      v.dtype != array.dtype) {
    return false;
  }
  Id from = element_pointer(v.slot, *v.args[0]);
  b_.op_void(Op::OpStore, {to, b_.op(Op::OpLoad, scalar_.storage_type(array.dtype), {from})});
  return true;
}

void SpvEmitter::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kBlock: body(s.body); return;
    case StmtKind::kFor: for_loop(s); return;
    case StmtKind::kIf: if_then(s); return;
    case StmtKind::kStore: store(s); return;
    case StmtKind::kPrefetch: return;  // a CPU cache hint; GPU kernels never carry one
    case StmtKind::kBarrier: b_.workgroup_barrier(); return;
    case StmtKind::kMatrix: matrix(s); return;
    case StmtKind::kDeclare: {
      // A lone declaration: its scope is the caller's block.
      declare(s);
      return;
    }
    case StmtKind::kAssign: {
      auto it = bound_.find(s.var);
      if (it == bound_.end() || !it->second.pointer) {
        fail(make_error(StatusCode::kInternal, "SPIR-V: assignment to '{}', not a local", s.var));
        return;
      }
      Id value = scalar_.cast(expr(*s.value), s.value->dtype, it->second.dtype);
      b_.op_void(Op::OpStore, {it->second.id, value});
      return;
    }
  }
}

}  // namespace plaidml::jit::spirv
