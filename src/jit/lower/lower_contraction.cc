// Contractions (docs/tile.md section 2): loops over the index box of bounds inference, guards only
// for the residual constraints and for the integrality of rational accesses, the combination,
// and the aggregation into the output element.
//
// Three shapes of loop nest:
//  - row form, when the last output dim is one index variable j with coefficient 1 and the
//    inputs are read with unit (or zero) stride along j at least as often as along the
//    innermost reduction variable (matmul, NHWC conv, pooling): outer output loops (the first
//    one parallel), then the reduction loops, then j innermost, aggregating into the output
//    row in memory. Unit-stride loads and stores along j let LLVM vectorize the inner loop;
//    each output element still sees its contributions in the reduction-loop order. The row is
//    initialised (and, for f16/bf16 accumulated in an f32 buffer, rounded) inside the same
//    outer iteration, so it stays in cache. With no outer output loop, j is split into blocks
//    and the block loop is the parallel one.
//  - register form, when every output index is one distinct index variable (plus a constant)
//    but the row form does not pay (reductions to scalars, reductions over the contiguous dim
//    like S[i] = +(X[i, j])): the output loops come first (the first one parallel), an
//    accumulator local holds the element while the reduction loops run innermost, and the
//    element is stored once. f16/bf16 sums and products accumulate in f32 and round once.
//  - memory form otherwise (O[i + j], O[2*i], ...): an init kernel, then a loop nest that
//    aggregates into memory (in an f32 buffer for f16/bf16 sums and products, followed by a
//    rounding kernel). Its outermost loop is parallel only when it writes disjoint elements;
//    a unit-stride last output variable goes innermost under the same test as the row form.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "jit/lower/lower_context.h"

namespace plaidml::jit {

using ir::AggOp;
using ir::CombOp;
using ir::OpKind;
using loop::ExprPtr;
using loop::StmtPtr;

namespace {

// Row elements per parallel block when the row form has no outer output loop to split.
constexpr int64_t kRowBlock = 256;

struct Guard {
  ExprPtr cond;
  int level = -1;  // position in the loop order of its innermost variable (-1: no variable)
};

class ContractionLowering {
 public:
  ContractionLowering(LowerContext& cx, ir::ValueId v)
      : cx_(cx), v_(v), bn_(cx.bnode(v)), bc_(*bn_.contraction), dims_(bn_.shape.dims) {
    out_dtype_ = cx.value_dtype(v);
    bool wide = out_dtype_ == DType::F16 || out_dtype_ == DType::BF16;
    acc_dtype_ = wide && (bc_.agg == AggOp::kSum || bc_.agg == AggOp::kProd) ? DType::F32
                                                                               : out_dtype_;
  }

  Status run();
  // Writes every output element once, so the epilogue chain ending at `last` may fuse
  // (fusion.h): the register form in its store, the row form in place once the row is done.
  bool takes_epilogue(ir::ValueId last);

 private:
  // Output dim d as "one variable + constant": the variable, else nullopt.
  std::optional<std::string> simple_out_var(size_t d) const;
  // An output dim of size 1 written at index 0, on no variable: a reduction's kept axis
  // (`S[i, 0 : N, 1] = +(X[i, j])`, every keepdims ReduceX and softmax of ONNX). No loop.
  bool unit_out_dim(size_t d) const;
  bool register_form() const;
  // Inputs read with a stride other than 0 or 1 along index `name` (rational: counted too).
  int strided_inputs(const std::string& name) const;
  // The row-form variable (see the header comment), else "".
  std::string row_candidate(const std::vector<std::string>& rest) const;
  void order_loops();
  // den * a as integer arithmetic (den: a multiple of a's denominator).
  ExprPtr numerator(const poly::Affine& a, int64_t den, bool with_constant = true) const;
  ExprPtr access_index(const std::vector<poly::Affine>& access, const std::vector<int64_t>& dims);
  int level_of(const poly::Affine& a) const;
  void add_guard(ExprPtr cond, int level);
  void collect_guards();
  ExprPtr combined();
  ExprPtr aggregate(ExprPtr acc, ExprPtr value) const;
  ExprPtr init_value(const std::vector<ExprPtr>& coords) const;
  std::vector<StmtPtr> guarded(int level, std::vector<StmtPtr> body) const;
  // Wraps `body` in the guards of levels [-1, below): those of the outer output loops.
  std::vector<StmtPtr> guarded_below(size_t below, std::vector<StmtPtr> body) const;
  // The outer loops of order_ that walk output elements (a row block counts as one).
  size_t leading_output_loops() const;
  StmtPtr loops_from(size_t first, size_t last, std::vector<StmtPtr> inner, bool parallel_first,
                     bool with_guards = true);
  // Marks the `count` outermost loops of `nest` (output loops, one element each) independent.
  static StmtPtr mark_independent(StmtPtr nest, size_t count);
  std::optional<std::string> parallel_candidate() const;
  int64_t range_index(const std::string& name) const;
  // The row variable's loop; within one block of it when the row is split into blocks.
  StmtPtr row_loop(std::vector<StmtPtr> body) const;
  void emit_init(int slot);
  void emit_round(int acc_slot);
  bool full_cover() const;
  // The row form's accumulation slot: the output's, or the chain end's when an epilogue fuses.
  int row_slot() const;
  // The final store of an output element: acc in the output dtype, or the fused epilogue.
  StmtPtr store_result(const std::vector<ExprPtr>& coords, const ExprPtr& o, const ExprPtr& acc);
  void emit_register_form(bool covers);
  void emit_row_form(bool covers);
  void emit_memory_form();
  double work() const;

  LowerContext& cx_;
  ir::ValueId v_;
  const ir::BoundNode& bn_;
  const ir::BoundContraction& bc_;
  std::vector<int64_t> dims_;
  DType out_dtype_;
  DType acc_dtype_;
  std::map<std::string, ExprPtr> vars_;  // index name -> loop variable or constant
  std::vector<std::string> order_;       // looped variables, outermost first
  bool parallel_ = false;                // order_[0] is a parallel loop
  std::string row_var_;                  // the row form's (or memory form's) innermost variable
  std::string block_var_;                // loops over blocks of row_var_ (parallel), or ""
  std::vector<Guard> guards_;
};

std::optional<std::string> ContractionLowering::simple_out_var(size_t d) const {
  // Beside another variable, index variables of extent 1 are constants (order_loops): a
  // depthwise conv's output channel g * 1 + o, o in [0, 1), is g.
  const poly::Affine& a = bc_.out_access[d];
  std::optional<std::string> found;
  poly::Rational constant = a.constant();
  for (const auto& [name, coeff] : a.terms()) {
    const poly::IndexRange& range = bc_.ranges[range_index(name)];
    if (range.extent() == 1 && a.terms().size() > 1) {
      constant = constant + coeff * poly::Rational(range.lo);
      continue;
    }
    if (found || !(coeff == poly::Rational(1))) return std::nullopt;
    found = name;
  }
  if (!found || !constant.is_integer()) return std::nullopt;
  for (size_t e = 0; e < bc_.out_access.size(); ++e) {
    if (e != d && !(bc_.out_access[e].coeff(*found) == poly::Rational(0))) return std::nullopt;
  }
  return found;
}

bool ContractionLowering::unit_out_dim(size_t d) const {
  const poly::Affine& a = bc_.out_access[d];
  return a.terms().empty() && a.constant() == poly::Rational(0) && dims_[d] == 1;
}

// Before unit dims counted, a keepdims reduction took the memory form: its outer loops but
// the first were not independent, so a GPU ran a softmax over [1, 12, 128, 128] on 12
// work-items (0.35 ms a kernel on an H200) and the CPU's threads split only the heads.
bool ContractionLowering::register_form() const {
  for (size_t d = 0; d < dims_.size(); ++d) {
    if (!simple_out_var(d) && !unit_out_dim(d)) return false;
  }
  return true;
}

int ContractionLowering::strided_inputs(const std::string& name) const {
  int count = 0;
  for (size_t k = 0; k < bc_.inputs.size(); ++k) {
    std::vector<int64_t> dims = cx_.dims(bc_.inputs[k]);
    int64_t stride = 0, step = 1;
    bool integral = true;
    for (size_t d = dims.size(); d-- > 0;) {
      poly::Rational c = bc_.in_access[k][d].coeff(name);
      integral = integral && c.is_integer();
      stride += c.num * step;
      step *= dims[d];
    }
    if (!integral || stride > 1 || stride < -1) ++count;
  }
  return count;
}

// `rest`: the looped variables of no simple output dim; its last one is the innermost loop of
// the register form. The row form pays when it reads inputs with unit stride at least as
// often; on a tie it still wins: float sums over a register do not vectorize (no reassociation)
// while a row does.
std::string ContractionLowering::row_candidate(const std::vector<std::string>& rest) const {
  if (cx_.options().gpu || dims_.empty() || rest.empty()) return "";
  auto j = simple_out_var(dims_.size() - 1);
  if (!j || bc_.ranges[range_index(*j)].extent() <= 1) return "";
  return strided_inputs(*j) <= strided_inputs(rest.back()) ? *j : "";
}

int64_t ContractionLowering::range_index(const std::string& name) const {
  return std::find(bc_.indices.begin(), bc_.indices.end(), name) - bc_.indices.begin();
}

// Index variables of extent 1 become constants; the others are looped over.
void ContractionLowering::order_loops() {
  std::vector<std::string> out_vars, rest;
  for (size_t d = 0; d < dims_.size(); ++d) {
    if (auto name = simple_out_var(d)) out_vars.push_back(*name);
  }
  for (size_t k = 0; k < bc_.indices.size(); ++k) {
    const std::string& name = bc_.indices[k];
    if (bc_.ranges[k].extent() == 1) {
      vars_[name] = loop::int_const(bc_.ranges[k].lo);
      continue;
    }
    vars_[name] = loop::var(name);
    if (std::find(out_vars.begin(), out_vars.end(), name) == out_vars.end()) rest.push_back(name);
  }
  row_var_ = row_candidate(rest);
  std::vector<std::string> looped_out;
  for (const auto& name : out_vars) {
    if (vars_[name]->kind == loop::ExprKind::kVar && name != row_var_) looped_out.push_back(name);
  }
  std::optional<std::string> parallel = parallel_candidate();
  if (parallel && *parallel != row_var_ && vars_[*parallel]->kind == loop::ExprKind::kVar) {
    order_.push_back(*parallel);
    parallel_ = true;
  } else if (!row_var_.empty() && bc_.ranges[range_index(row_var_)].extent() > kRowBlock) {
    block_var_ = row_var_ + "$blk";
    order_.push_back(block_var_);
    parallel_ = true;
  }
  for (const auto& name : looped_out) {
    if (!parallel_ || name != order_[0]) order_.push_back(name);
  }
  for (const auto& name : rest) order_.push_back(name);
  if (!row_var_.empty()) order_.push_back(row_var_);
}

ExprPtr ContractionLowering::numerator(const poly::Affine& a, int64_t den,
                                       bool with_constant) const {
  ExprPtr sum = loop::int_const(0);
  for (const auto& [name, coeff] : a.terms()) {
    poly::Rational k = coeff * poly::Rational(den);
    sum = loop::idx_add(sum, loop::idx_mul(vars_.at(name), k.num));
  }
  if (!with_constant) return sum;
  return loop::idx_add(sum, loop::int_const((a.constant() * poly::Rational(den)).num));
}

int ContractionLowering::level_of(const poly::Affine& a) const {
  int level = -1;
  for (const auto& [name, coeff] : a.terms()) {
    auto it = std::find(order_.begin(), order_.end(), name);
    if (it != order_.end()) level = std::max(level, static_cast<int>(it - order_.begin()));
  }
  return level;
}

void ContractionLowering::add_guard(ExprPtr cond, int level) {
  if (cond->is_const() && cond->int_value != 0) return;
  // A guard on no variable goes inside the outermost loop: a parallel loop must stay at the top.
  if (level < 0 && !order_.empty()) level = 0;
  guards_.push_back(Guard{std::move(cond), level});
}

// Linear index of an access; a rational dim adds a divisibility guard and divides exactly.
ExprPtr ContractionLowering::access_index(const std::vector<poly::Affine>& access,
                                          const std::vector<int64_t>& dims) {
  std::vector<ExprPtr> coords;
  for (const poly::Affine& a : access) {
    int64_t den = a.denominator();
    ExprPtr num = numerator(a, den);
    if (den == 1) {
      coords.push_back(num);
      continue;
    }
    ExprPtr rem = loop::op(OpKind::Mod, DType::I64, {num, loop::int_const(den)});
    add_guard(loop::op(OpKind::Eq, DType::Bool, {rem, loop::int_const(0)}), level_of(a));
    coords.push_back(loop::op(OpKind::Div, DType::I64, {num, loop::int_const(den)}));
  }
  return LowerContext::linear_index(dims, coords);
}

void ContractionLowering::collect_guards() {
  for (const poly::RangeConstraint& rc : bc_.residual) {
    // lo <= e <= hi as den*lo - c <= den*(e - constant) <= den*hi - c.
    int64_t den = rc.expr.denominator();
    int64_t c = (rc.expr.constant() * poly::Rational(den)).num;
    ExprPtr num = numerator(rc.expr, den, /*with_constant=*/false);
    ExprPtr lo = loop::op(OpKind::Ge, DType::Bool, {num, loop::int_const(rc.lo * den - c)});
    ExprPtr hi = loop::op(OpKind::Le, DType::Bool, {num, loop::int_const(rc.hi * den - c)});
    add_guard(loop::op(OpKind::BitAnd, DType::Bool, {lo, hi}), level_of(rc.expr));
  }
}

ExprPtr ContractionLowering::combined() {
  std::vector<ExprPtr> in;
  for (size_t k = 0; k < bc_.inputs.size(); ++k) {
    ir::ValueId t = bc_.inputs[k];
    ExprPtr index = access_index(bc_.in_access[k], cx_.dims(t));
    in.push_back(cx_.value_at(t, index, cx_.value_dtype(t)));
  }
  DType compute = bn_.compute_dtype;
  switch (bc_.comb) {
    case CombOp::kNone: return loop::cast(acc_dtype_, in[0]);
    case CombOp::kMul:
    case CombOp::kAdd: {
      OpKind kind = bc_.comb == CombOp::kMul ? OpKind::Mul : OpKind::Add;
      ExprPtr value = scalar_op(kind, compute, compute, {in[0], in[1]});
      return loop::cast(acc_dtype_, value);
    }
    case CombOp::kEq:
    case CombOp::kCond: {
      DType both = promote(in[0]->dtype, in[1]->dtype);
      ExprPtr eq = scalar_op(OpKind::Eq, DType::Bool, both, {in[0], in[1]});
      if (bc_.comb == CombOp::kEq) return loop::cast(acc_dtype_, eq);
      ExprPtr c = loop::cast(acc_dtype_, in[2]);
      return loop::op(OpKind::Select, acc_dtype_, {eq, c, loop::zero(acc_dtype_)});
    }
  }
  return in[0];
}

// Bool aggregates follow the interpreter: the integer result narrowed to bool (v != 0).
ExprPtr ContractionLowering::aggregate(ExprPtr acc, ExprPtr value) const {
  bool is_bool = acc_dtype_ == DType::Bool;
  OpKind kind = OpKind::Add;
  switch (bc_.agg) {
    case AggOp::kAssign: return value;
    case AggOp::kSum: kind = is_bool ? OpKind::BitOr : OpKind::Add; break;
    case AggOp::kProd: kind = is_bool ? OpKind::BitAnd : OpKind::Mul; break;
    case AggOp::kMax: kind = is_bool ? OpKind::BitOr : OpKind::Max; break;
    case AggOp::kMin: kind = is_bool ? OpKind::BitAnd : OpKind::Min; break;
  }
  return loop::op(kind, acc_dtype_, {std::move(acc), std::move(value)});
}

ExprPtr ContractionLowering::init_value(const std::vector<ExprPtr>& coords) const {
  if (bc_.default_value) {
    ir::ValueId d = *bc_.default_value;
    ExprPtr index = LowerContext::broadcast_index(cx_.dims(d), dims_, coords);
    return loop::cast(acc_dtype_, cx_.value_at(d, index, out_dtype_));
  }
  switch (bc_.agg) {
    case AggOp::kSum:
    case AggOp::kAssign: return loop::zero(acc_dtype_);
    case AggOp::kProd: return loop::one(acc_dtype_);
    case AggOp::kMax: return loop::lowest(acc_dtype_);
    case AggOp::kMin: return loop::highest(acc_dtype_);
  }
  return loop::zero(acc_dtype_);
}

std::vector<StmtPtr> ContractionLowering::guarded(int level, std::vector<StmtPtr> body) const {
  ExprPtr cond;
  for (const Guard& g : guards_) {
    if (g.level != level) continue;
    cond = cond ? loop::op(OpKind::BitAnd, DType::Bool, {cond, g.cond}) : g.cond;
  }
  if (!cond) return body;
  return {loop::if_then(cond, std::move(body))};
}

std::vector<StmtPtr> ContractionLowering::guarded_below(size_t below,
                                                       std::vector<StmtPtr> body) const {
  for (int level = static_cast<int>(below) - 1; level >= -1; --level) {
    body = guarded(level, std::move(body));
  }
  return body;
}

size_t ContractionLowering::leading_output_loops() const {
  size_t n = 0;
  while (n < order_.size() && order_[n] != row_var_) {
    bool is_out = order_[n] == block_var_;
    for (size_t d = 0; d < dims_.size(); ++d) is_out = is_out || simple_out_var(d) == order_[n];
    if (!is_out) break;
    ++n;
  }
  return n;
}

// Loops order_[first..last) around `inner`, each loop's body wrapped in the guards of its level.
StmtPtr ContractionLowering::loops_from(size_t first, size_t last, std::vector<StmtPtr> inner,
                                        bool parallel_first, bool with_guards) {
  std::vector<StmtPtr> body = std::move(inner);
  for (size_t k = last; k-- > first;) {
    const std::string& name = order_[k];
    if (with_guards) body = guarded(static_cast<int>(k), std::move(body));
    bool parallel = parallel_first && k == first;
    if (name == block_var_) {
      int64_t blocks = (bc_.ranges[range_index(row_var_)].extent() + kRowBlock - 1) / kRowBlock;
      body = {loop::for_loop(name, 0, blocks, std::move(body), parallel)};
    } else if (name == row_var_) {
      body = {row_loop(std::move(body))};
    } else {
      const poly::IndexRange& r = bc_.ranges[range_index(name)];
      body = {loop::for_loop(name, r.lo, r.hi + 1, std::move(body), parallel)};
    }
  }
  return loop::block(std::move(body));
}

StmtPtr ContractionLowering::mark_independent(StmtPtr nest, size_t count) {
  loop::Stmt* s = nest.get();
  for (size_t k = 0; k < count && s; ++k) {
    if (s->kind == loop::StmtKind::kBlock && s->body.size() == 1) s = s->body[0].get();
    if (s->kind != loop::StmtKind::kFor) break;
    s->independent = true;
    s = s->body.size() == 1 ? s->body[0].get() : nullptr;
  }
  return nest;
}

StmtPtr ContractionLowering::row_loop(std::vector<StmtPtr> body) const {
  const poly::IndexRange& r = bc_.ranges[range_index(row_var_)];
  StmtPtr s = loop::for_loop(row_var_, r.lo, r.hi + 1, std::move(body));
  if (block_var_.empty()) return s;
  s->lo = loop::idx_add(loop::int_const(r.lo), loop::idx_mul(loop::var(block_var_), kRowBlock));
  s->hi = loop::op(OpKind::Min, DType::I64,
                   {loop::idx_add(s->lo, loop::int_const(kRowBlock)), loop::int_const(r.hi + 1)});
  return s;
}

// The identity or default into `slot`: the f32 accumulation buffer of an f16/bf16 sum or
// product, or the output itself (rounded to its dtype: an f16 sum whose loops leave elements
// unreached, or that reaches none, initialises its output here).
void ContractionLowering::emit_init(int slot) {
  StmtPtr body = cx_.nest(dims_, "i", [&](const std::vector<ExprPtr>& coords) {
    ExprPtr value = loop::cast(cx_.slot_dtype(slot), init_value(coords));
    return std::vector<StmtPtr>{
        loop::store(slot, LowerContext::linear_index(dims_, coords), std::move(value))};
  });
  cx_.add_kernel(v_, "_init", std::move(body), static_cast<double>(bn_.shape.elements()));
}

// The f32 accumulation buffer of an f16/bf16 result, rounded into the output once.
void ContractionLowering::emit_round(int acc_slot) {
  int out_slot = cx_.slot_of(v_);
  StmtPtr round = cx_.nest(dims_, "i", [&](const std::vector<ExprPtr>& coords) {
    ExprPtr index = LowerContext::linear_index(dims_, coords);
    ExprPtr wide = loop::load(acc_slot, acc_dtype_, index);
    return std::vector<StmtPtr>{loop::store(out_slot, index, loop::cast(out_dtype_, wide))};
  });
  cx_.add_kernel(v_, "_round", std::move(round), static_cast<double>(bn_.shape.elements()));
}

// Operations per index point: a multiply per extra input and the aggregation, so a matmul's or
// conv's work is its FLOPs as usually counted (2 per multiply-add; a conv's padded taps
// included), which the profiler reports (GFLOP/s per kernel).
double ContractionLowering::work() const {
  double points = 1;
  for (const auto& r : bc_.ranges) points *= static_cast<double>(r.extent());
  return points * static_cast<double>(std::max<size_t>(1, bc_.inputs.size()));
}


std::optional<std::string> ContractionLowering::parallel_candidate() const {
  for (size_t d = 0; d < dims_.size(); ++d) {
    auto name = simple_out_var(d);
    if (!name) continue;
    size_t r = std::find(bc_.indices.begin(), bc_.indices.end(), *name) - bc_.indices.begin();
    if (r < bc_.ranges.size() && bc_.ranges[r].extent() > 1) return name;
  }
  return std::nullopt;
}

bool ContractionLowering::full_cover() const {
  bool cover = true;
  for (size_t d = 0; d < dims_.size(); ++d) {
    if (unit_out_dim(d)) continue;  // its one element is written
    const poly::Affine& a = bc_.out_access[d];
    const std::string& name = a.terms().begin()->first;
    size_t r = std::find(bc_.indices.begin(), bc_.indices.end(), name) - bc_.indices.begin();
    int64_t c = a.constant().num;
    cover = cover && bc_.ranges[r].lo + c == 0 && bc_.ranges[r].hi + c == dims_[d] - 1;
  }
  return cover;
}

bool ContractionLowering::takes_epilogue(ir::ValueId last) {
  if (bc_.empty) return false;
  order_loops();
  if (!register_form() || !full_cover()) return false;
  if (row_var_.empty()) return true;
  // The row accumulates in the chain end's buffer and the epilogue rewrites it in place, so
  // that buffer must hold the accumulator as it is (no f16/bf16 rounding, no other dtype).
  return acc_dtype_ == out_dtype_ && cx_.value_dtype(last) == acc_dtype_;
}

int ContractionLowering::row_slot() const {
  auto chain = cx_.fusion().epilogue.find(v_);
  return chain == cx_.fusion().epilogue.end() ? cx_.slot_of(v_)
                                              : cx_.slot_of(chain->second.back());
}

Status ContractionLowering::run() {
  int out_slot = cx_.slot_of(v_);
  if (bc_.empty) {
    emit_init(out_slot);
    return Status::ok();
  }
  order_loops();
  if (!register_form()) {
    emit_memory_form();
    return Status::ok();
  }
  if (row_var_.empty()) {
    emit_register_form(full_cover());
  } else {
    emit_row_form(full_cover());
  }
  return Status::ok();
}

StmtPtr ContractionLowering::store_result(const std::vector<ExprPtr>& coords, const ExprPtr& o,
                                          const ExprPtr& acc) {
  ExprPtr value = loop::cast(out_dtype_, acc);
  ir::ValueId last = v_;
  auto chain = cx_.fusion().epilogue.find(v_);
  if (chain != cx_.fusion().epilogue.end()) {
    for (ir::ValueId u : chain->second) {
      value = elementwise_value(cx_, u, coords, {{last, value}});
      last = u;
    }
  }
  int slot = cx_.slot_of(last);
  return loop::store(slot, o, loop::cast(cx_.slot_dtype(slot), value));
}

void ContractionLowering::emit_register_form(bool covers) {
  int out_slot = cx_.slot_of(v_);
  if (!covers) emit_init(out_slot);
  std::vector<ExprPtr> coords;
  for (size_t d = 0; d < dims_.size(); ++d) coords.push_back(numerator(bc_.out_access[d], 1));
  ExprPtr o = LowerContext::linear_index(dims_, coords);
  ExprPtr value = combined();
  collect_guards();
  size_t n_out = leading_output_loops();
  const std::string acc_name = "$acc";
  ExprPtr acc = loop::var(acc_name, acc_dtype_);
  ExprPtr init = covers ? init_value(coords)
                            : loop::cast(acc_dtype_, loop::load(out_slot, out_dtype_, o));
  StmtPtr reduce = loops_from(n_out, order_.size(),
                              {loop::assign(acc_name, aggregate(acc, value))}, false);
  // Guards on output variables only wrap the reduction: the element is stored either way.
  std::vector<StmtPtr> reduce_body = guarded_below(n_out, reduce->body);
  std::vector<StmtPtr> body = {loop::declare(acc_name, init)};
  body.insert(body.end(), reduce_body.begin(), reduce_body.end());
  body.push_back(store_result(coords, o, acc));
  cx_.add_kernel(v_, "",
                 mark_independent(loops_from(0, n_out, std::move(body), parallel_, false), n_out),
                 work());
}

// Per outer output iteration: init the row (unless a separate init kernel covers elements the
// loops never reach), aggregate into it under the reduction loops, round f16/bf16 rows or apply
// the fused epilogue in place.
void ContractionLowering::emit_row_form(bool covers) {
  int out_slot = row_slot();
  bool epilogue = cx_.fusion().epilogue.count(v_) > 0;
  int acc_slot = out_slot;
  if (acc_dtype_ != out_dtype_) {
    acc_slot = cx_.add_slot(BufferSlot::Role::kTemp, v_, Shape(acc_dtype_, dims_));
  }
  if (!covers) emit_init(acc_slot);
  std::vector<ExprPtr> coords;
  for (size_t d = 0; d < dims_.size(); ++d) coords.push_back(numerator(bc_.out_access[d], 1));
  ExprPtr o = LowerContext::linear_index(dims_, coords);
  ExprPtr value = combined();
  collect_guards();
  size_t n_out = leading_output_loops();
  ExprPtr old = loop::load(acc_slot, acc_dtype_, o);
  StmtPtr reduce = loops_from(n_out, order_.size(),
                              {loop::store(acc_slot, o, aggregate(old, value))}, false);
  std::vector<StmtPtr> body;
  if (covers) body.push_back(row_loop({loop::store(acc_slot, o, init_value(coords))}));
  for (auto& s : guarded_below(n_out, reduce->body)) body.push_back(std::move(s));
  if (epilogue) body.push_back(row_loop({store_result(coords, o, old)}));
  bool round_rows = acc_slot != out_slot && covers;
  if (round_rows) {
    ExprPtr wide = loop::cast(out_dtype_, loop::load(acc_slot, acc_dtype_, o));
    body.push_back(row_loop({loop::store(out_slot, o, std::move(wide))}));
  }
  cx_.add_kernel(v_, "",
                 mark_independent(loops_from(0, n_out, std::move(body), parallel_, false), n_out),
                 work());
  if (acc_slot != out_slot && !round_rows) emit_round(acc_slot);
}

void ContractionLowering::emit_memory_form() {
  int out_slot = cx_.slot_of(v_);
  int acc_slot = out_slot;
  if (acc_dtype_ != out_dtype_) {
    acc_slot = cx_.add_slot(BufferSlot::Role::kTemp, v_, Shape(acc_dtype_, dims_));
  }
  emit_init(acc_slot);
  ExprPtr o = access_index(bc_.out_access, dims_);
  ExprPtr value = combined();
  collect_guards();
  ExprPtr old = loop::load(acc_slot, acc_dtype_, o);
  std::vector<StmtPtr> inner = {loop::store(acc_slot, o, aggregate(old, value))};
  if (order_.empty()) inner = guarded(-1, std::move(inner));
  cx_.add_kernel(v_, "", loops_from(0, order_.size(), std::move(inner), parallel_), work());
  if (acc_slot != out_slot) emit_round(acc_slot);
}

}  // namespace

Status lower_contraction(LowerContext& cx, ir::ValueId v) {
  if (!cx.bnode(v).contraction) {
    return Status(StatusCode::kInternal, "lower: contraction node without bound contraction");
  }
  return ContractionLowering(cx, v).run();
}

bool contraction_takes_epilogue(LowerContext& cx, ir::ValueId v, ir::ValueId last) {
  return cx.bnode(v).contraction && ContractionLowering(cx, v).takes_epilogue(last);
}

}  // namespace plaidml::jit
