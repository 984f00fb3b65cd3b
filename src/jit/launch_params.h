// The device launch of an artifact's kernel as its entry describes it: what the runtime's runs
// (run_call.cc) and the tile search's timings (tile_measure.cc) both hand to Device::launch.
#pragma once

#include <cstdint>

#include "devices/device.h"
#include "jit/codegen/artifact.h"

namespace plaidml::jit {

// Kernel `index` of the loaded executable, launched as `entry` says.
inline devices::LaunchParams launch_params(const KernelEntry& entry, uint32_t index) {
  devices::LaunchParams p;
  p.kernel = index;
  p.parallel_extent = entry.parallel_extent;
  p.work = entry.work;
  p.grid = entry.grid;
  p.workgroup = entry.workgroup;
  return p;
}

}  // namespace plaidml::jit
