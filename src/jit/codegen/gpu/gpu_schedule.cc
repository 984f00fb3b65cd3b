// One GPU schedule for both emitters (gpu_schedule.h).
#include "jit/codegen/gpu/gpu_schedule.h"

#include "jit/codegen/gpu/index_fold.h"
#include "jit/codegen/gpu/reduction_merge.h"

namespace plaidml::jit::gpu {

namespace {

int64_t groups(int64_t extent, int64_t block) { return (extent + block - 1) / block; }

bool launchable(const TileProblem& p, const TileChoice& c, const DispatchLimits& dispatch) {
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  if (p.n + c.bn() > kMax32 || p.m + c.bm() > kMax32 || p.k + c.bk > kMax32) return false;
  return p.uniform <= dispatch.max_groups && groups(p.n, c.bn()) <= dispatch.max_groups &&
         groups(p.m, c.bm()) <= dispatch.max_groups;
}

std::optional<TiledSchedule> schedule_form(const loop::Kernel& kernel, const GpuTarget& target,
                                           const DispatchLimits& dispatch, const TileChoice* hint) {
  std::optional<RegisterForm> form = match_register_form(kernel);
  if (!form) return std::nullopt;
  std::optional<TiledPlan> plan = plan_tiled(*form);
  if (!plan) return std::nullopt;
  std::optional<TileChoice> tiles = choose_tiles(plan->problem, target);
  if (!tiles || !launchable(plan->problem, *tiles, dispatch)) return std::nullopt;
  if (hint && tiles_fit(plan->problem, *hint, target) &&
      launchable(plan->problem, *hint, dispatch)) {
    tiles = *hint;
  }
  LaunchDims launch = tiled_launch(*plan, *tiles);
  return TiledSchedule{std::move(*plan), *tiles, launch, nullptr};
}

}  // namespace

std::optional<TiledSchedule> schedule_tiled(const loop::Kernel& kernel, const GpuTarget& target,
                                            const DispatchLimits& dispatch,
                                            const TileChoice* hint) {
  if (std::optional<loop::Kernel> merged = merge_short_reductions(kernel)) {
    auto source = std::make_shared<const loop::Kernel>(std::move(*merged));
    std::optional<TiledSchedule> s = schedule_form(*source, target, dispatch, hint);
    if (s && (s->plan.point_guards.empty() || s->plan.zero_fill)) {
      s->merged = std::move(source);
      return s;
    }
  }
  return schedule_form(kernel, target, dispatch, hint);
}

std::vector<TileChoice> tiled_candidates(const loop::Kernel& kernel, const GpuTarget& target,
                                         const DispatchLimits& dispatch, size_t max) {
  if (schedule_matrix(kernel, target, dispatch.max_groups) ||
      schedule_reduction(kernel, target, dispatch.max_groups)) {
    return {};
  }
  std::optional<TiledSchedule> model = schedule_tiled(kernel, target, dispatch);
  if (!model) return {};
  std::vector<TileChoice> out;
  for (const TileChoice& c : tile_candidates(model->plan.problem, target, max)) {
    if (launchable(model->plan.problem, c, dispatch)) out.push_back(c);
  }
  return out;
}

GpuSchedule schedule_program(const LoweredProgram& lowered, const GpuTarget& target,
                             const DispatchLimits& dispatch, const TileHints& hints) {
  GpuSchedule schedule;
  for (const loop::Kernel& kernel : lowered.kernels) {
    // f16 products on a device with cooperative matrices: its tensor cores.
    std::optional<GpuKernel> matrix = schedule_matrix(kernel, target, dispatch.max_groups);
    // A reduction whose loads no two points share gains nothing from tiles: cooperative.
    std::optional<GpuKernel> reduction;
    if (!matrix) reduction = schedule_reduction(kernel, target, dispatch.max_groups);
    std::optional<TiledSchedule> tiled;
    if (!matrix && !reduction) {
      auto hint = hints.by_kernel.find(kernel.name);
      tiled = schedule_tiled(kernel, target, dispatch,
                             hint == hints.by_kernel.end() ? nullptr : &hint->second);
    }
    if (matrix) {
      schedule.kernels.push_back(std::move(matrix));
    } else if (reduction) {
      schedule.kernels.push_back(std::move(reduction));
    } else if (tiled) {
      schedule.kernels.push_back(build_tiled_kernel(kernel, tiled->plan, tiled->tiles, tiled->launch));
    } else {
      schedule.kernels.push_back(std::nullopt);
    }
    if (schedule.kernels.back()) fold_indices(*schedule.kernels.back());
    schedule.tiled.push_back(std::move(tiled));
  }
  return schedule;
}

}  // namespace plaidml::jit::gpu
