#include "jit/codegen/gpu/tiled_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "jit/loop/printer.h"

namespace plaidml::jit::gpu {

using loop::ExprKind;
using loop::ExprPtr;
using loop::Stmt;
using loop::StmtKind;

namespace {

// Bytes of a value in shared memory: f16/bf16 are staged as float (their value type).
int64_t value_bytes(DType dtype) {
  if (dtype == DType::F16 || dtype == DType::BF16) return 4;
  return dtype_size(dtype);
}

bool subset(const std::set<std::string>& vars, const std::set<std::string>& allowed) {
  return std::all_of(vars.begin(), vars.end(), [&](const auto& v) { return allowed.count(v); });
}

std::set<std::string> tile_vars(const RegisterForm& form, LoadSide side) {
  std::set<std::string> vars = uniform_vars(form);
  vars.insert(form.k_loop().var);
  if (side == LoadSide::kN) vars.insert(form.n_loop().var);
  if (side == LoadSide::kM) {
    for (const Stmt* m : form.m_loops()) vars.insert(m->var);
  }
  return vars;
}

bool contiguous_along_k(const RegisterForm& form, const ClassifiedLoad& load) {
  const loop::Expr& index = *load.load->args[0];
  auto along_k = linear_coeff(index, form.k_loop().var);
  if (!along_k || std::llabs(*along_k) != 1) return false;
  if (load.side == LoadSide::kK) return true;
  // The m group's innermost loop is the fastest-varying m position.
  const std::string& side_var = load.side == LoadSide::kN ? form.n_loop().var
                                                          : form.m_loops().back()->var;
  auto along_side = linear_coeff(index, side_var);
  return !along_side || std::llabs(*along_side) != 1;
}

StagedTile make_tile(const RegisterForm& form, const ClassifiedLoad& load, size_t number) {
  StagedTile t{load, "tile" + std::to_string(number), contiguous_along_k(form, load), {}};
  const std::set<std::string> known = tile_vars(form, load.side);
  for (const Stmt* s : form.path) {
    if (s->kind != StmtKind::kIf) continue;
    std::vector<ExprPtr> parts;
    conjuncts(s->cond, parts);
    for (auto& p : parts) {
      if (subset(vars_of(*p), known)) t.safety.push_back(p);
    }
  }
  return t;
}

TileProblem describe(const RegisterForm& form, const std::vector<StagedTile>& tiles,
                     size_t global_loads) {
  TileProblem p;
  p.n = loop::trip_count(form.n_loop());
  p.has_m = form.has_m();
  p.m = form.m_extent();
  p.k = loop::trip_count(form.k_loop());
  for (size_t i = 0; i < form.uniform_band_count(); ++i) {
    p.uniform *= loop::trip_count(*form.band[i]);
  }
  for (size_t i = 0; i < form.k_pos; ++i) {
    if (form.path[i]->kind == StmtKind::kFor) p.serial *= loop::trip_count(*form.path[i]);
  }
  for (const StagedTile& t : tiles) {
    int64_t bytes = value_bytes(t.load.load->dtype);
    if (t.load.side == LoadSide::kM) {
      p.m_tile_bytes += bytes;
      ++p.m_tiles;
    } else if (t.load.side == LoadSide::kN) {
      p.n_tile_bytes += bytes;
      ++p.n_tiles;
    } else if (t.load.side == LoadSide::kK) {
      p.k_tile_bytes += bytes;
      ++p.k_tiles;
    }
  }
  p.global_loads = static_cast<int>(global_loads);
  return p;
}

const StagedTile* tile_of(const std::vector<StagedTile>& tiles, const loop::Expr& load) {
  const std::string key = loop::to_string(load);
  for (const StagedTile& t : tiles) {
    if (t.load.key == key) return &t;
  }
  return nullptr;
}

bool is_positive_zero(const loop::Expr& e) {
  if (!e.is_const()) return false;
  if (!dtype_is_float(e.dtype)) return true;  // an integer sum: 0 * y is exactly 0
  return e.float_value == 0.0 && !std::signbit(e.float_value);
}

// Whether every conjunct of every point guard is one of `tile`'s safety guards: where a point
// guard fails, the element the point reads from the tile is the zero fill.
bool guards_zero_fill(const std::vector<ExprPtr>& point_guards, const StagedTile& tile) {
  std::set<std::string> safety;
  for (const ExprPtr& g : tile.safety) safety.insert(loop::to_string(*g));
  for (const ExprPtr& g : point_guards) {
    std::vector<ExprPtr> parts;
    conjuncts(g, parts);
    for (const ExprPtr& p : parts) {
      if (safety.count(loop::to_string(*p)) == 0) return false;
    }
  }
  return true;
}

// TiledPlan::zero_fill of a plan whose points are extent-free.
std::optional<TiledPlan::ZeroFill> find_zero_fill(const TiledPlan& plan) {
  const RegisterForm& form = plan.form;
  if (plan.point_guards.empty() || !is_positive_zero(*form.declare->value)) return std::nullopt;
  const loop::Expr& sum = *form.assign->value;
  if (sum.kind != ExprKind::kOp || sum.op != ir::OpKind::Add || sum.args.size() != 2) {
    return std::nullopt;
  }
  const loop::Expr& acc = *sum.args[0];
  const loop::Expr& product = *sum.args[1];
  if (acc.kind != ExprKind::kVar || acc.name != form.declare->var ||
      product.kind != ExprKind::kOp || product.op != ir::OpKind::Mul || product.args.size() != 2 ||
      product.dtype != acc.dtype) {
    return std::nullopt;
  }
  for (int x = 0; x < 2; ++x) {
    const loop::Expr& xe = *product.args[static_cast<size_t>(x)];
    const loop::Expr& ye = *product.args[static_cast<size_t>(1 - x)];
    if (xe.kind != ExprKind::kLoad || ye.kind != ExprKind::kLoad) return std::nullopt;
    const StagedTile* xt = tile_of(plan.tiles, xe);
    const StagedTile* yt = tile_of(plan.tiles, ye);
    if (!xt || !yt || !guards_zero_fill(plan.point_guards, *xt)) continue;
    TiledPlan::ZeroFill z;
    z.zeroed_tile = static_cast<size_t>(xt - plan.tiles.data());
    if (dtype_is_float(ye.dtype)) z.checked_tile = static_cast<size_t>(yt - plan.tiles.data());
    return z;
  }
  return std::nullopt;
}

}  // namespace

void conjuncts(const ExprPtr& cond, std::vector<ExprPtr>& out) {
  bool is_and = cond->kind == loop::ExprKind::kOp && cond->op == ir::OpKind::BitAnd &&
                cond->dtype == DType::Bool;
  if (!is_and) {
    out.push_back(cond);
    return;
  }
  for (const auto& a : cond->args) conjuncts(a, out);
}

std::optional<TiledPlan> plan_tiled(const RegisterForm& form) {
  TiledPlan plan{form, {}, {}, {}, false, false, std::nullopt, {}};
  size_t global_loads = 0;
  for (const ClassifiedLoad& load : classify_loads(form)) {
    if (load.side == LoadSide::kGlobal) {
      ++global_loads;
      continue;
    }
    plan.tiles.push_back(make_tile(form, load, plan.tiles.size()));
  }
  if (plan.tiles.empty()) return std::nullopt;
  // An `if` outside k on uniform variables only may gate the chunk loop; any other guard is
  // evaluated at each point, exactly where the reference evaluates it.
  const std::set<std::string> uniform = uniform_vars(form);
  for (size_t i = 0; i < form.path.size(); ++i) {
    const Stmt* s = form.path[i];
    if (s->kind != StmtKind::kIf) continue;
    if (i < form.k_pos && subset(vars_of(*s->cond), uniform)) {
      plan.uniform_ifs.insert(i);
    } else {
      plan.point_guards.push_back(s->cond);
    }
  }
  plan.unguarded_points = plan.point_guards.empty() && global_loads == 0;
  plan.extent_free_points =
      global_loads == 0 && std::none_of(plan.point_guards.begin(), plan.point_guards.end(),
                                        [](const ExprPtr& g) { return has_load(*g); });
  if (plan.extent_free_points) plan.zero_fill = find_zero_fill(plan);
  plan.problem = describe(form, plan.tiles, global_loads);
  return plan;
}

LaunchDims tiled_launch(const TiledPlan& plan, const TileChoice& c) {
  const RegisterForm& form = plan.form;
  const int64_t m_extent = form.m_extent();
  LaunchDims dims;
  dims.grid = {static_cast<uint32_t>((loop::trip_count(form.n_loop()) + c.bn() - 1) / c.bn()),
               static_cast<uint32_t>((m_extent + c.bm() - 1) / c.bm()),
               static_cast<uint32_t>(plan.problem.uniform)};
  dims.workgroup = {static_cast<uint32_t>(c.tx), static_cast<uint32_t>(c.ty), 1};
  return dims;
}

}  // namespace plaidml::jit::gpu
