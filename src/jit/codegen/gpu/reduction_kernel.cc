// schedule_reduction (reduction_kernel.h): the cooperative reduction written out as loop IR.
#include "jit/codegen/gpu/reduction_kernel.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "jit/codegen/gpu/contraction_match.h"
#include "jit/codegen/gpu/kernel_builders.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {

using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

namespace {

using Bindings = std::map<std::string, ExprPtr>;
using namespace build;  // NOLINT: the short builders are this file's vocabulary

const char* const kPartial = "@part";  // a work-item's partial aggregate
const char* const kWalk = "@w";        // the step of the strided walk along k

// The aggregation of `assign` (acc = op(acc, x)) when partial aggregates combine with it.
std::optional<ir::OpKind> combining_op(const Stmt& assign) {
  if (!loop::updates_itself(assign) || assign.value->args.size() != 2) return std::nullopt;
  const ir::OpKind op = assign.value->op;
  const bool is_bool = assign.value->dtype == DType::Bool;
  switch (op) {
    case ir::OpKind::Add:
    case ir::OpKind::Mul:
    case ir::OpKind::Max:
    case ir::OpKind::Min: return is_bool ? std::nullopt : std::optional(op);
    case ir::OpKind::BitOr:
    case ir::OpKind::BitAnd: return is_bool ? std::optional(op) : std::nullopt;
    default: return std::nullopt;
  }
}

ExprPtr identity(ir::OpKind op, DType t) {
  switch (op) {
    case ir::OpKind::Mul:
    case ir::OpKind::BitAnd: return loop::one(t);
    case ir::OpKind::Max: return loop::lowest(t);
    case ir::OpKind::Min: return loop::highest(t);
    default: return loop::zero(t);  // Add, BitOr
  }
}

// Every load of the aggregation reads every band loop: no output point reads what another does.
bool loads_unshared(const RegisterForm& form) {
  const std::vector<const loop::Expr*> loads = aggregation_loads(form);
  return std::all_of(loads.begin(), loads.end(), [&](const loop::Expr* load) {
    std::set<std::string> vars = vars_of(*load);
    return std::all_of(form.band.begin(), form.band.end(),
                       [&](const Stmt* s) { return vars.count(s->var) > 0; });
  });
}

// Work-items per workgroup: a power of two up to 256 and the device's limit, no more than k.
int threads_for(int64_t k, const GpuTarget& target) {
  int t = 1;
  while (t < 256 && t < k && t * 2 <= target.max_workgroup_size) t *= 2;
  return t;
}

class ReductionBuilder {
 public:
  ReductionBuilder(const RegisterForm& form, ir::OpKind op, int threads)
      : form_(form), op_(op), threads_(threads), dtype_(form.declare->value->dtype) {
    decode_band();
  }

  std::vector<StmtPtr> body() const {
    std::vector<StmtPtr> out = {loop::declare(kPartial, identity(op_, dtype_)), walk(),
                                loop::store(workgroup_slot(0), lid(), part()), loop::barrier()};
    for (int half = threads_ / 2; half >= 1; half /= 2) {
      ExprPtr mine = partial_at(lid()), theirs = partial_at(add(lid(), c(half)));
      out.push_back(loop::if_then(less(lid(), c(half)),
                                  {loop::store(workgroup_slot(0), lid(), combine(mine, theirs))}));
      // The last halving is work-item 0's own, and so is the read of its result.
      if (half > 1) out.push_back(loop::barrier());
    }
    out.push_back(loop::if_then(less(lid(), c(1)), finish()));
    return out;
  }

 private:
  static ExprPtr lid() { return loop::var(local_id(0)); }
  ExprPtr part() const { return loop::var(kPartial, dtype_); }
  ExprPtr partial_at(ExprPtr i) const { return loop::load(workgroup_slot(0), dtype_, std::move(i)); }
  ExprPtr combine(ExprPtr a, ExprPtr b) const {
    return loop::op(op_, dtype_, {std::move(a), std::move(b)});
  }

  // One workgroup per output point: the band loops decoded from the group index, innermost
  // fastest.
  void decode_band() {
    ExprPtr g = loop::var(group_id(0));
    for (size_t i = form_.band.size(); i-- > 0;) {
      const Stmt& loop = *form_.band[i];
      if (i == 0) {
        band_[loop.var] = value_of(loop, g);
        break;
      }
      const int64_t trips = loop::trip_count(loop);
      band_[loop.var] = value_of(loop, index_op(ir::OpKind::Mod, g, c(trips)));
      g = index_op(ir::OpKind::Div, g, c(trips));
    }
  }

  // Work-item t aggregates k = t, t + T, ...: the path's guards (all pure) around each step.
  StmtPtr walk() const {
    const int64_t k = loop::trip_count(form_.k_loop());
    const int64_t steps = (k + threads_ - 1) / threads_;
    const ExprPtr at = add(mul(loop::var(kWalk), threads_), lid());
    Bindings b = band_;
    b[form_.k_loop().var] = value_of(form_.k_loop(), at);
    b[form_.declare->var] = part();
    StmtPtr step = loop::assign(kPartial, combine(part(), loop::substitute(form_.assign->value->args[1], b)));
    for (size_t i = form_.path.size(); i-- > 0;) {
      const Stmt& s = *form_.path[i];
      if (s.kind == StmtKind::kIf) step = loop::if_then(loop::substitute(s.cond, b), {step});
    }
    if (k % threads_ != 0) step = loop::if_then(less(at, c(k)), {step});
    return counted(kWalk, c(0), c(steps), 1, {step},
                   steps > 1 && steps <= 8 ? static_cast<int>(steps) : 0);
  }

  // Work-item 0: the point's initial value, combined with the partials, then the epilogue.
  std::vector<StmtPtr> finish() const {
    const std::string& acc = form_.declare->var;
    std::vector<StmtPtr> out = {
        loop::declare(acc, loop::substitute(form_.declare->value, band_)),
        loop::assign(acc, combine(loop::var(acc, dtype_), partial_at(c(0))))};
    for (const Stmt* s : form_.epilogue) {
      out.push_back(loop::substitute(std::make_shared<Stmt>(*s), band_));
    }
    return out;
  }

  const RegisterForm& form_;
  ir::OpKind op_;
  int threads_;
  DType dtype_;
  Bindings band_;
};

int64_t band_points(const RegisterForm& form) {
  int64_t points = 1;
  for (const Stmt* s : form.band) points *= loop::trip_count(*s);
  return points;
}

}  // namespace

std::optional<GpuKernel> schedule_reduction(const loop::Kernel& kernel, const GpuTarget& target,
                                            int64_t max_groups) {
  std::optional<RegisterForm> form = match_register_form(kernel);
  if (!form) return std::nullopt;
  const size_t loops = std::count_if(form->path.begin(), form->path.end(),
                                     [](const Stmt* s) { return s->kind == StmtKind::kFor; });
  if (loops != 1 || loop::trip_count(form->k_loop()) < kMinCooperativeReduction) {
    return std::nullopt;
  }
  std::optional<ir::OpKind> op = combining_op(*form->assign);
  if (!op || !loads_unshared(*form)) return std::nullopt;
  const int64_t points = band_points(*form);
  if (points > max_groups || points > std::numeric_limits<int32_t>::max()) return std::nullopt;
  const int threads = threads_for(loop::trip_count(form->k_loop()), target);
  if (threads < 2) return std::nullopt;
  GpuKernel out = scheduled_from(kernel);
  out.kernel.body = loop::block(ReductionBuilder(*form, *op, threads).body());
  out.arrays.push_back(WorkgroupArray{"partials", form->declare->value->dtype, threads});
  out.launch.grid = {static_cast<uint32_t>(points), 1, 1};
  out.launch.workgroup = {static_cast<uint32_t>(threads), 1, 1};
  return out;
}

}  // namespace plaidml::jit::gpu
