// The device launch of an artifact's kernel: what the runtime's runs (run_call.cc) and the tile
// search's timings (tile_measure.cc) both hand to Device::launch.
#pragma once

#include <cstdint>

#include "devices/device.h"
#include "jit/codegen/artifact.h"
#include "jit/kernel_table.h"

namespace plaidml::jit {

// Kernel `index` of its loaded executable, launched as `entry` says: over the extent of the
// kernel it was generated from.
inline devices::LaunchParams launch_params(const KernelEntry& entry, uint32_t index) {
  devices::LaunchParams p;
  p.kernel = index;
  p.parallel_extent = entry.parallel_extent;
  p.work = entry.work;
  p.grid = entry.grid;
  p.workgroup = entry.workgroup;
  return p;
}

// The same kernel launched for `call`, over the call's extent: a CPU kernel serves every extent
// of its parallel loop (KernelForms::kShapeClasses); a GPU kernel's form fixes it.
inline devices::LaunchParams launch_params(const KernelEntry& entry, uint32_t index,
                                           const KernelCall& call) {
  devices::LaunchParams p = launch_params(entry, index);
  p.parallel_extent = call.parallel_extent;
  p.work = call.work;
  return p;
}

}  // namespace plaidml::jit
