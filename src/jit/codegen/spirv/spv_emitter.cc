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
                       std::vector<Id> slot_vars, bool index32)
    : program_(program),
      scalar_(scalar),
      b_(scalar.builder()),
      slot_vars_(std::move(slot_vars)),
      index32_(index32) {}

void SpvEmitter::fail(Status status) {
  if (status_.is_ok()) status_ = std::move(status);
}

void SpvEmitter::bind_value(const std::string& name, Id id) {
  bound_[name] = Binding{id, false, DType::I64};
}

void SpvEmitter::bind_pointer(const std::string& name, Id ptr, DType t) {
  bound_[name] = Binding{ptr, true, t};
}

void SpvEmitter::scoped(const std::function<void()>& f) {
  std::map<std::string, Binding> saved = bound_;
  f();
  bound_ = std::move(saved);
}

Id SpvEmitter::var(const Expr& e) {
  auto it = bound_.find(e.name);
  if (it == bound_.end()) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: variable '{}' is not bound", e.name));
    return scalar_.int_const(e.dtype, 0);
  }
  const Binding& bnd = it->second;
  if (!bnd.pointer) return bnd.id;
  return b_.op(Op::OpLoad, scalar_.value_type(bnd.dtype), {bnd.id});
}

Id SpvEmitter::element_pointer(int slot, const Expr& index) {
  DType t = program_.slots.at(static_cast<size_t>(slot)).shape.dtype;
  Id i = expr(index);
  if (index32_) i = b_.op(Op::OpSConvert, b_.type_int(32, true), {i});
  Id ptr = b_.type_pointer(spv::StorageClass::StorageBuffer, scalar_.storage_type(t));
  return b_.op(Op::OpAccessChain, ptr,
               {slot_vars_.at(static_cast<size_t>(slot)), b_.const_int(32, true, 0), i});
}

Id SpvEmitter::load(const Expr& e) {
  if (load_hook_) {
    if (std::optional<Id> staged = load_hook_(e)) return *staged;
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

Id SpvEmitter::op(const Expr& e) {
  if (e.op == ir::OpKind::Select && (has_load(*e.args[1]) || has_load(*e.args[2]))) {
    return lazy_select(e);
  }
  DType operand = e.op == ir::OpKind::Select ? e.args[1]->dtype : e.args[0]->dtype;
  std::vector<Id> args;
  for (const auto& a : e.args) args.push_back(expr(*a));
  Expected<Id> r = scalar_.op(e.op, operand, args);
  if (!r) {
    fail(r.status());
    return scalar_.int_const(e.dtype, 0);
  }
  return *r;
}

Id SpvEmitter::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kConst: return scalar_.constant(e);
    case ExprKind::kVar: return var(e);
    case ExprKind::kLoad: return load(e);
    case ExprKind::kCast: return scalar_.cast(expr(*e.args[0]), e.args[0]->dtype, e.dtype);
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
  DType t = s.value->dtype;
  Id init = expr(*s.value);  // before the name is rebound: `x = f(x)` is legal
  Id ptr = b_.local_variable(scalar_.value_type(t));
  b_.op_void(Op::OpStore, {ptr, init});
  bound_[s.var] = Binding{ptr, true, t};
}

// var = lo; while (var < hi) { body; var += step; } as header -> condition -> body ->
// continue -> header, merging after the loop.
void SpvEmitter::for_loop(const Stmt& s) {
  std::optional<Binding> saved;
  if (auto it = bound_.find(s.var); it != bound_.end()) saved = it->second;
  Id i64 = scalar_.value_type(DType::I64);
  Id lo = expr(*s.lo);
  Id ptr = b_.local_variable(i64);
  b_.op_void(Op::OpStore, {ptr, lo});
  // hi is emitted before the variable is bound: hi never names it.
  b_.counted_loop(
      ptr, i64, [&] { return expr(*s.hi); }, b_.const_int(64, true, static_cast<uint64_t>(s.step)),
      [&] {
        bound_[s.var] = Binding{ptr, true, DType::I64};
        body(s.body);
      });
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
  DType t = program_.slots.at(static_cast<size_t>(s.slot)).shape.dtype;
  Id value = scalar_.cast(expr(*s.value), s.value->dtype, t);
  Id ptr = element_pointer(s.slot, *s.index);
  b_.op_void(Op::OpStore, {ptr, scalar_.to_storage(t, value)});
}

void SpvEmitter::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kBlock: body(s.body); return;
    case StmtKind::kFor: for_loop(s); return;
    case StmtKind::kIf: if_then(s); return;
    case StmtKind::kStore: store(s); return;
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
