// Split-K of long reductions over small outputs (split_k.h).
#include "jit/codegen/gpu/split_k.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jit/codegen/gpu/contraction_match.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {
namespace {

using loop::ExprPtr;
using loop::StmtPtr;

constexpr const char* kSplitVar = "ksplit";

bool zero_based(const loop::Stmt& loop) {
  return loop.kind == loop::StmtKind::kFor && loop.lo && loop.lo->is_int_const(0) && loop.hi &&
         loop.hi->is_const() && loop.step == 1;
}

// A kernel split_long_reductions can split, with what it needs to.
struct Splittable {
  RegisterForm form;
  int64_t k = 0, points = 1;
  int factor = 0;
};

// acc = acc + term, all f32.
bool is_f32_sum(const RegisterForm& form) {
  const loop::Expr& v = *form.assign->value;
  if (form.declare->value->dtype != DType::F32 || v.kind != loop::ExprKind::kOp ||
      v.op != ir::OpKind::Add || v.dtype != DType::F32 || v.args.size() != 2) {
    return false;
  }
  const loop::Expr& acc = *v.args[0];
  if (acc.kind != loop::ExprKind::kVar || acc.name != form.declare->var) return false;
  for (const loop::Expr* load : aggregation_loads(form)) {
    if (load->dtype != DType::F32) return false;
  }
  return true;
}

std::optional<Splittable> splittable(const loop::Kernel& kernel, int compute_units) {
  std::optional<RegisterForm> form = match_register_form(kernel);
  if (!form || kernel.body->body.size() != 1 || form->path.size() != 1) return std::nullopt;
  if (!zero_based(form->k_loop()) || !is_f32_sum(*form) ||
      loop::mentions(*kernel.body, kSplitVar)) {
    return std::nullopt;
  }
  Splittable s;
  for (const loop::Stmt* b : form->band) {
    if (!zero_based(*b)) return std::nullopt;
    s.points *= loop::trip_count(*b);
  }
  // The innermost band loop's body: the accumulator, the reduction loop, the epilogue.
  const std::vector<StmtPtr>& inner = form->band.back()->body;
  if (inner.size() < 2 || inner[0].get() != form->declare || inner[1].get() != form->path[0]) {
    return std::nullopt;
  }
  s.k = loop::trip_count(form->k_loop());
  s.factor = split_factor(s.points, s.k, compute_units);
  if (s.factor == 0) return std::nullopt;
  s.form = std::move(*form);
  return s;
}

// The band point's position in T: s * points + the band loops' flat index (row-major).
ExprPtr partial_index(const Splittable& s) {
  ExprPtr flat = loop::int_const(0);
  for (const loop::Stmt* b : s.form.band) {
    flat = loop::idx_add(loop::idx_mul(flat, loop::trip_count(*b)), loop::var(b->var));
  }
  return loop::idx_add(loop::idx_mul(loop::var(kSplitVar), s.points), flat);
}

// The band loops around `inner`, as in the original, the outermost no longer the parallel one.
StmtPtr band_around(const Splittable& s, std::vector<StmtPtr> inner) {
  for (size_t i = s.form.band.size(); i-- > 0;) {
    auto loop = std::make_shared<loop::Stmt>(*s.form.band[i]);
    loop->parallel = false;
    loop->independent = true;
    loop->body = std::move(inner);
    inner = {loop};
  }
  return inner[0];
}

loop::Kernel with_body(const loop::Kernel& original, std::string name, StmtPtr body, double work) {
  loop::Kernel k;
  k.name = std::move(name);
  k.body = loop::block({std::move(body)});
  std::set<int> reads, writes;
  loop::collect_slots(*k.body, reads, writes);
  k.reads.assign(reads.begin(), reads.end());
  k.writes.assign(writes.begin(), writes.end());
  k.work = work;
  k.origins = original.origins;
  return k;
}

// for ksplit in [0, S) { band { acc = 0; for k in [0, K/S) { acc += term(ksplit * K/S + k) };
// T[ksplit, point] = acc } }
loop::Kernel partial_kernel(const loop::Kernel& original, const Splittable& s, int temp) {
  const std::string& acc = s.form.declare->var;
  const loop::Stmt& k_loop = s.form.k_loop();
  const int64_t part = s.k / s.factor;
  std::map<std::string, ExprPtr> shifted = {
      {k_loop.var,
       loop::idx_add(loop::idx_mul(loop::var(kSplitVar), part), loop::var(k_loop.var))}};
  StmtPtr step = loop::substitute(std::make_shared<loop::Stmt>(*s.form.assign), shifted);
  StmtPtr reduce = loop::for_loop(k_loop.var, 0, part, {step});
  std::vector<StmtPtr> inner = {loop::declare(acc, loop::zero(DType::F32)), reduce,
                                loop::store(temp, partial_index(s), loop::var(acc, DType::F32))};
  StmtPtr split = loop::independent_loop(kSplitVar, 0, s.factor, {band_around(s, inner)}, true);
  return with_body(original, original.name + "_part", split, original.work);
}

// The original kernel with its reduction loop reading the partial sums:
// band { acc = init; for ksplit in [0, S) { acc += T[ksplit, point] }; epilogue }
loop::Kernel combine_kernel(const loop::Kernel& original, const Splittable& s, int temp) {
  const std::string& acc = s.form.declare->var;
  ExprPtr sum =
      loop::op(ir::OpKind::Add, DType::F32,
               {loop::var(acc, DType::F32), loop::load(temp, DType::F32, partial_index(s))});
  std::vector<StmtPtr> inner = s.form.band.back()->body;
  inner[1] = loop::for_loop(kSplitVar, 0, s.factor, {loop::assign(acc, sum)});
  StmtPtr band = band_around(s, std::move(inner));
  band->parallel = true;
  return with_body(original, original.name, band, static_cast<double>(s.points * s.factor));
}

}  // namespace

int split_factor(int64_t points, int64_t k, int compute_units) {
  if (k < kSplitMinReduction || points > int64_t{compute_units} * kSplitMaxPointsPerUnit) return 0;
  for (int f : {8, 6, 4, 3, 2}) {
    if (k % f == 0 && k / f >= kSplitMinPart) return f;
  }
  return 0;
}

void split_long_reductions(LoweredProgram& lowered, int compute_units) {
  std::vector<loop::Kernel> kernels;
  for (const loop::Kernel& kernel : lowered.kernels) {
    std::optional<Splittable> s = splittable(kernel, compute_units);
    if (!s) {
      kernels.push_back(kernel);
      continue;
    }
    const int temp = static_cast<int>(lowered.slots.size());
    BufferSlot slot;
    slot.role = BufferSlot::Role::kTemp;
    slot.index = kernel.writes.empty() ? 0 : lowered.slots[kernel.writes[0]].index;
    slot.shape = Shape(DType::F32, {s->factor * s->points});
    lowered.slots.push_back(slot);
    kernels.push_back(partial_kernel(kernel, *s, temp));
    kernels.push_back(combine_kernel(kernel, *s, temp));
  }
  lowered.kernels = std::move(kernels);
}

}  // namespace plaidml::jit::gpu
