#include "jit/codegen/gpu/band_launch.h"

#include <algorithm>
#include <limits>

namespace plaidml::jit {
namespace {

// Threads per workgroup: enough to fill a GPU's schedulers, few enough to keep many
// workgroups per compute unit; dim 2 is limited to 64 threads on common GPUs.
constexpr int64_t kMaxThreads = 256;
constexpr int64_t kMaxDim2Threads = 64;

int64_t ceil_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

int64_t floor_pow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

std::array<BandDim, 3> map_band(const std::vector<const loop::Stmt*>& band) {
  std::array<BandDim, 3> dims;
  size_t n = band.size();
  dims[0].loops = {band[n - 1]};
  if (n >= 2) dims[1].loops = {band[n - 2]};
  if (n >= 3) dims[2].loops.assign(band.begin(), band.end() - 2);
  for (BandDim& d : dims) {
    for (const loop::Stmt* l : d.loops) {
      int64_t e = loop::trip_count(*l);
      bool overflow = e != 0 && d.extent > std::numeric_limits<int64_t>::max() / e;
      d.extent = overflow ? std::numeric_limits<int64_t>::max() : d.extent * e;
    }
  }
  return dims;
}

std::optional<LaunchDims> band_launch(const std::array<BandDim, 3>& dims,
                                      int max_workgroup_size, size_t* overflow_dim) {
  LaunchDims out;
  int64_t budget = floor_pow2(std::clamp<int64_t>(max_workgroup_size, 1, kMaxThreads));
  for (size_t d = 0; d < 3; ++d) {
    int64_t extent = std::max<int64_t>(dims[d].extent, 1);
    int64_t wg = std::min(ceil_pow2(std::min(extent, kMaxThreads)), budget);
    if (d == 2) wg = std::min(wg, kMaxDim2Threads);
    budget /= wg;
    int64_t grid = (extent + wg - 1) / wg;
    if (grid > std::numeric_limits<uint32_t>::max()) {
      if (overflow_dim) *overflow_dim = d;
      return std::nullopt;
    }
    out.workgroup[d] = static_cast<uint32_t>(wg);
    out.grid[d] = static_cast<uint32_t>(grid);
  }
  return out;
}

}  // namespace plaidml::jit
