#include "jit/loop/loop_ir.h"

#include <algorithm>

#include <cassert>
#include <limits>

namespace plaidml::jit::loop {

ExprPtr int_const(int64_t value, DType dtype) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConst;
  e->dtype = dtype;
  e->int_value = value;
  e->float_value = static_cast<double>(value);
  return e;
}

ExprPtr float_const(double value, DType dtype) {
  assert(dtype_is_float(dtype));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConst;
  e->dtype = dtype;
  e->float_value = value;
  return e;
}

ExprPtr var(const std::string& name, DType dtype, int lanes) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kVar;
  e->dtype = dtype;
  e->lanes = lanes;
  e->name = name;
  return e;
}

ExprPtr load(int slot, DType dtype, ExprPtr index) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLoad;
  e->dtype = dtype;
  e->slot = slot;
  e->args = {std::move(index)};
  return e;
}

ExprPtr op(ir::OpKind kind, DType result, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kOp;
  e->dtype = result;
  e->op = kind;
  e->args = std::move(args);
  for (const auto& a : e->args) e->lanes = std::max(e->lanes, a->lanes);
  return e;
}

ExprPtr vload(int slot, DType dtype, ExprPtr index, int lanes) {
  auto e = std::make_shared<Expr>(*load(slot, dtype, std::move(index)));
  e->lanes = lanes;
  return e;
}

ExprPtr broadcast(ExprPtr scalar, int lanes) {
  if (lanes == scalar->lanes) return scalar;
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->dtype = scalar->dtype;
  e->lanes = lanes;
  e->args = {std::move(scalar)};
  return e;
}

namespace {

// Wraps an integer to the width and signedness of dtype (two's complement).
int64_t wrap_to(int64_t v, DType dtype) {
  int bits = dtype_bits(dtype);
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (dtype_is_signed(dtype) && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

// Conversions of constants that are exact to do here; float -> integer is left to the emitter
// (saturation rules live in one place).
ExprPtr fold_const_cast(DType dtype, const Expr& c) {
  bool from_float = dtype_is_float(c.dtype);
  if (dtype_is_float(dtype)) {
    double v = from_float ? c.float_value
                          : (c.dtype == DType::U64 ? static_cast<double>(static_cast<uint64_t>(
                                                         c.int_value))
                                                   : static_cast<double>(c.int_value));
    return float_const(v, dtype);
  }
  if (dtype == DType::Bool) {
    return int_const(from_float ? (c.float_value != 0 || c.float_value != c.float_value)
                                : c.int_value != 0,
                     dtype);
  }
  if (from_float) return nullptr;
  return int_const(wrap_to(c.int_value, dtype), dtype);
}

}  // namespace

ExprPtr cast(DType dtype, ExprPtr value) {
  if (value->dtype == dtype) return value;
  if (value->is_const() && value->lanes == 1) {
    if (ExprPtr folded = fold_const_cast(dtype, *value)) return folded;
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->dtype = dtype;
  e->lanes = value->lanes;
  e->args = {std::move(value)};
  return e;
}

ExprPtr idx_add(ExprPtr a, ExprPtr b) {
  if (a->is_int_const(0)) return b;
  if (b->is_int_const(0)) return a;
  if (a->is_const() && b->is_const()) return int_const(wrapping_add(a->int_value, b->int_value));
  return op(ir::OpKind::Add, DType::I64, {std::move(a), std::move(b)});
}

ExprPtr idx_mul(ExprPtr a, int64_t b) { return idx_mul(std::move(a), int_const(b)); }

ExprPtr idx_mul(ExprPtr a, ExprPtr b) {
  if (a->is_int_const(0) || b->is_int_const(0)) return int_const(0);
  if (a->is_int_const(1)) return b;
  if (b->is_int_const(1)) return a;
  if (a->is_const() && b->is_const()) return int_const(wrapping_mul(a->int_value, b->int_value));
  return op(ir::OpKind::Mul, DType::I64, {std::move(a), std::move(b)});
}

ExprPtr zero(DType dtype) {
  return dtype_is_float(dtype) ? float_const(0.0, dtype) : int_const(0, dtype);
}

ExprPtr one(DType dtype) {
  return dtype_is_float(dtype) ? float_const(1.0, dtype) : int_const(1, dtype);
}

ExprPtr lowest(DType dtype) {
  if (dtype_is_float(dtype)) return float_const(-std::numeric_limits<double>::infinity(), dtype);
  if (dtype == DType::Bool || !dtype_is_signed(dtype)) return int_const(0, dtype);
  int bits = dtype_bits(dtype);
  return int_const(bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)),
                   dtype);
}

ExprPtr highest(DType dtype) {
  if (dtype_is_float(dtype)) return float_const(std::numeric_limits<double>::infinity(), dtype);
  if (dtype == DType::Bool) return int_const(1, dtype);
  int bits = dtype_bits(dtype);
  if (!dtype_is_signed(dtype)) {  // all ones: u64 max is stored as its bit pattern -1
    return int_const(bits == 64 ? -1 : static_cast<int64_t>((uint64_t{1} << bits) - 1), dtype);
  }
  return int_const(bits == 64 ? std::numeric_limits<int64_t>::max()
                              : static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1),
                   dtype);
}

StmtPtr block(std::vector<StmtPtr> body) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kBlock;
  s->body = std::move(body);
  return s;
}

StmtPtr for_loop(const std::string& var_name, int64_t lo, int64_t hi, std::vector<StmtPtr> body,
                 bool parallel) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kFor;
  s->var = var_name;
  s->lo = int_const(lo);
  s->hi = int_const(hi);
  s->body = std::move(body);
  s->parallel = parallel;
  s->independent = parallel;
  return s;
}

StmtPtr independent_loop(const std::string& var_name, int64_t lo, int64_t hi,
                         std::vector<StmtPtr> body, bool parallel) {
  StmtPtr s = for_loop(var_name, lo, hi, std::move(body), parallel);
  s->independent = true;
  return s;
}

StmtPtr if_then(ExprPtr cond, std::vector<StmtPtr> then) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kIf;
  s->cond = std::move(cond);
  s->body = std::move(then);
  return s;
}

StmtPtr store(int slot, ExprPtr index, ExprPtr value) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kStore;
  s->slot = slot;
  s->index = std::move(index);
  s->value = std::move(value);
  return s;
}

StmtPtr prefetch(int slot, ExprPtr index) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kPrefetch;
  s->slot = slot;
  s->index = std::move(index);
  return s;
}

StmtPtr barrier() {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kBarrier;
  return s;
}

StmtPtr matrix(const std::string& block, MatrixOp op) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kMatrix;
  s->var = block;
  s->matrix = std::make_shared<const MatrixOp>(std::move(op));
  return s;
}

StmtPtr declare(const std::string& name, ExprPtr init) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kDeclare;
  s->var = name;
  s->value = std::move(init);
  return s;
}

StmtPtr assign(const std::string& name, ExprPtr value) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kAssign;
  s->var = name;
  s->value = std::move(value);
  return s;
}

const Stmt* find_parallel_loop(const Kernel& kernel) {
  if (!kernel.body) return nullptr;
  for (const auto& s : kernel.body->body) {
    if (s->kind == StmtKind::kFor && s->parallel) return s.get();
  }
  return nullptr;
}

std::vector<const Stmt*> find_band(const Kernel& kernel) {
  std::vector<const Stmt*> band;
  const Stmt* s = find_parallel_loop(kernel);
  while (s) {
    band.push_back(s);
    if (s->body.size() != 1) break;
    const Stmt* inner = s->body[0].get();
    bool constant = inner->kind == StmtKind::kFor && inner->lo->is_const() && inner->hi->is_const();
    s = constant && inner->independent ? inner : nullptr;
  }
  return band;
}

int64_t trip_count(const Stmt& loop) {
  int64_t span = loop.hi->int_value - loop.lo->int_value;
  return span <= 0 ? 0 : (span + loop.step - 1) / loop.step;
}

int64_t parallel_extent(const Kernel& kernel) {
  const Stmt* loop = find_parallel_loop(kernel);
  if (!loop || !loop->lo->is_const() || !loop->hi->is_const()) return 1;
  // An empty loop: one call that does nothing.
  return std::max<int64_t>(1, trip_count(*loop));
}

}  // namespace plaidml::jit::loop

namespace plaidml::jit::loop {
namespace {

bool expr_has_vectors(const ExprPtr& e) {
  if (!e) return false;
  if (e->lanes > 1) return true;
  return std::any_of(e->args.begin(), e->args.end(), expr_has_vectors);
}

bool stmt_has_vectors(const StmtPtr& s) {
  for (const ExprPtr& e : {s->lo, s->hi, s->cond, s->index, s->value}) {
    if (expr_has_vectors(e)) return true;
  }
  return std::any_of(s->body.begin(), s->body.end(), stmt_has_vectors);
}

}  // namespace

bool has_vectors(const Kernel& kernel) { return kernel.body && stmt_has_vectors(kernel.body); }

namespace {

void note_slot(int slot, std::vector<int>& order) {
  if (slot >= 0 && std::find(order.begin(), order.end(), slot) == order.end()) order.push_back(slot);
}

void expr_slots(const Expr& e, std::vector<int>& order) {
  for (const auto& a : e.args) {
    if (a) expr_slots(*a, order);
  }
  if (e.kind == ExprKind::kLoad) note_slot(e.slot, order);
}

void stmt_slots(const Stmt& s, std::vector<int>& order) {
  for (const ExprPtr& e : {s.lo, s.hi, s.cond, s.index, s.value}) {
    if (e) expr_slots(*e, order);
  }
  if (s.kind == StmtKind::kStore || s.kind == StmtKind::kPrefetch) note_slot(s.slot, order);
  for (const auto& child : s.body) stmt_slots(*child, order);
}

}  // namespace

std::vector<int> parameters(const Kernel& kernel) {
  std::vector<int> order;
  if (kernel.body) stmt_slots(*kernel.body, order);
  for (int s : kernel.reads) note_slot(s, order);
  for (int s : kernel.writes) note_slot(s, order);
  return order;
}

}  // namespace plaidml::jit::loop
