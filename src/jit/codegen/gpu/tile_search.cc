#include "jit/codegen/gpu/tile_search.h"

#include <algorithm>
#include <cmath>

namespace plaidml::jit::gpu {
namespace {

constexpr int kThreadCandidates[] = {4, 8, 16, 32};
constexpr int kRegisterCandidates[] = {1, 2, 4, 8};
constexpr int kChunkCandidates[] = {4, 8, 16, 32};
constexpr int kMaxAccumulators = 64;  // RM*RN: more spills registers on every GPU we know
// Accumulators of a whole workgroup (TX*TY*RM*RN): a quarter of a 64K-register file, the
// smallest register file per compute unit among current GPUs, so that operands fit beside them.
constexpr int64_t kMaxGroupAccumulators = 16384;
// Below this many multiply-adds a tiled kernel's barriers and staging cost more than they save.
constexpr int64_t kMinPoints = 64;
constexpr int64_t kMinReduction = 4;
// Model constants: a global byte costs about twice a multiply-add (GPUs have ~10 flops per
// byte of bandwidth, caches recover part of it); a barrier plus the staging loop's bookkeeping
// costs about 16 multiply-adds per thread; a compute unit hides latency with two workgroups;
// a workgroup below 64 threads leaves SIMD lanes idle on every current GPU.
constexpr double kByteCost = 2.0;
constexpr double kChunkOverhead = 16.0;
constexpr int64_t kWorkgroupsPerUnit = 2;
constexpr int kLanes = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// The shapes tile_candidates offers beside the model's choice (tx, ty, rn, rm, bk), best first
// on the NVIDIA H200 (bench/RESULTS.md, issue 36, eighth session: 14 shapes under the batch-32
// 3x3 convolutions, whose guards are zero-filled; the fourth session's under the matmuls and 1x1
// convolutions). Blocks of 64 x 128 or 128 x 64 points came first on the convolutions whose
// 128 x 128 tiles leave compute units idle (14x14x256: 98 tiles on 132 units); those the
// problem's extents filter out (a block twice a side) leave room for the ones after them.
constexpr TileChoice kMeasuredShapes[] = {
    {32, 8, 4, 8, 8},   {16, 16, 4, 4, 16}, {16, 16, 4, 8, 16}, {8, 32, 8, 4, 8},
    {16, 16, 4, 4, 8},  {16, 16, 8, 8, 8},  {16, 16, 8, 4, 16}, {16, 8, 8, 8, 8},
    {32, 32, 2, 2, 16}, {8, 8, 8, 8, 16},   {8, 8, 4, 4, 16},
};

}  // namespace

bool tiles_fit(const TileProblem& p, const TileChoice& c, const GpuTarget& target) {
  if (int64_t{c.tx} * c.ty > target.max_workgroup_size) return false;
  if (c.rm * c.rn > kMaxAccumulators) return false;
  if (int64_t{c.tx} * c.ty * c.rm * c.rn > kMaxGroupAccumulators) return false;
  if (!p.has_m && (c.ty != 1 || c.rm != 1)) return false;
  if (staged_per_thread(p, c) > kMaxStagedPerThread) return false;
  return local_bytes(p, c) <= target.local_memory_bytes / 2;
}

std::vector<TileChoice> tile_candidates(const TileProblem& p, const GpuTarget& target, size_t max) {
  std::vector<TileChoice> out;
  std::optional<TileChoice> model = choose_tiles(p, target);
  if (!model || max == 0) return out;
  out.push_back(*model);
  for (TileChoice c : kMeasuredShapes) {
    if (out.size() >= max) break;
    if (!p.has_m) c.ty = c.rm = 1;
    // A block twice the problem along a side computes mostly padding.
    if (c.bn() >= 2 * p.n || (p.has_m && c.bm() >= 2 * p.m)) continue;
    if (!tiles_fit(p, c, target) || std::find(out.begin(), out.end(), c) != out.end()) continue;
    out.push_back(c);
  }
  return out;
}

int64_t staged_per_thread(const TileProblem& p, const TileChoice& c) {
  const int64_t threads = int64_t{c.tx} * c.ty;
  return p.m_tiles * ceil_div(c.bk * c.bm(), threads) + p.n_tiles * ceil_div(c.bk * c.bn(), threads) +
         p.k_tiles * ceil_div(c.bk, threads);
}

int register_group(int registers) { return registers % 4 == 0 ? 4 : registers % 2 == 0 ? 2 : 1; }

int64_t local_bytes(const TileProblem& p, const TileChoice& c) {
  return c.bk * (padded_row(c.bm(), c.rm) * p.m_tile_bytes +
                 padded_row(c.bn(), c.rn) * p.n_tile_bytes + p.k_tile_bytes);
}

double tile_cost(const TileProblem& p, const TileChoice& c, const GpuTarget& target) {
  const double bm = static_cast<double>(c.bm()), bn = static_cast<double>(c.bn());
  const int64_t chunks = ceil_div(p.k, c.bk) * p.serial;
  const double threads = static_cast<double>(c.tx) * c.ty;
  // Global bytes per multiply-add: a tile element of one side serves the other side's block.
  double bytes_per_point = static_cast<double>(p.m_tile_bytes) / bn +
                           static_cast<double>(p.n_tile_bytes) / bm +
                           static_cast<double>(p.k_tile_bytes) / (bm * bn) +
                           4.0 * p.global_loads;
  // One workgroup's work, padded to whole tiles along every dim (wasted edge work counts).
  double points = bm * bn * static_cast<double>(c.bk) * static_cast<double>(chunks);
  double per_workgroup = points * (1.0 + kByteCost * bytes_per_point) +
                         static_cast<double>(chunks) * threads * kChunkOverhead;
  double lanes = std::min<double>(threads, std::min(kLanes, target.max_workgroup_size));
  int64_t workgroups = ceil_div(p.n, c.bn()) * ceil_div(p.m, c.bm()) * p.uniform;
  // Workgroups run in waves over the compute units; too few leave units idle.
  int64_t waves = ceil_div(workgroups, int64_t{target.compute_units} * kWorkgroupsPerUnit);
  return static_cast<double>(waves) * per_workgroup / lanes;
}

std::optional<TileChoice> choose_tiles(const TileProblem& p, const GpuTarget& target) {
  if (p.m_tile_bytes + p.n_tile_bytes + p.k_tile_bytes == 0) return std::nullopt;
  if (p.k < kMinReduction || p.n * p.m * p.k < kMinPoints) return std::nullopt;
  std::optional<TileChoice> best;
  double best_cost = 0;
  for (int tx : kThreadCandidates) {
    for (int ty : kThreadCandidates) {
      for (int rn : kRegisterCandidates) {
        for (int rm : kRegisterCandidates) {
          for (int bk : kChunkCandidates) {
            TileChoice c{tx, p.has_m ? ty : 1, rn, p.has_m ? rm : 1, bk};
            if (!tiles_fit(p, c, target)) continue;
            double cost = tile_cost(p, c, target);
            if (!best || cost < best_cost) {
              best = c;
              best_cost = cost;
            }
          }
        }
      }
    }
  }
  return best;
}

}  // namespace plaidml::jit::gpu
