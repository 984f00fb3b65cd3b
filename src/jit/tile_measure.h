// The measured tile search (docs/devices.md, "GPU code generation"): at a program's first
// compile for a GPU, each tiled contraction kernel with enough work is compiled with a few tile
// choices (gpu::tiled_candidates: the cost model's first), each is timed on the device on
// scratch buffers, and the fastest becomes the kernel's tile hint. The choice is kept in the
// artifact cache under the kernel alone (its canonical text, slots and target: a shape class
// per device), so a later program with the same kernel, in this process or the next, takes it
// without measuring. The model is a guess; the device's own clock settles it.
//
// On by default on devices of kind "gpu"; PLAIDML_GPU_TILE_SEARCH=0 turns it off and =1 on for
// every device that takes GPU code (PoCL, lavapipe). PLAIDML_GPU_TILE_SEARCH_SECONDS bounds the
// time one program's search may take (default 10; the heaviest kernels are measured first):
// past it, the remaining kernels keep the model's choice, unrecorded, so a later compile of
// another program with them measures them. A failure to build, allocate
// or launch a candidate is never an error of the compile: that kernel keeps the model's choice.
#pragma once

#include <optional>
#include <vector>

#include "core/base/status.h"
#include "devices/device.h"
#include "jit/cache/artifact_cache.h"
#include "jit/cache/artifact_key.h"
#include "jit/codegen/artifact.h"
#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/gpu_codegen.h"
#include "jit/lower/lower.h"

namespace plaidml::jit {

struct TileSearchOptions {
  bool enabled = false;
  double budget_seconds = 10;
  double min_work = 1e7;      // smaller kernels keep the model's choice: timing costs more
  size_t max_candidates = 6;  // per kernel, the model's choice included
};

// From the environment (above) for `device`.
TileSearchOptions tile_search_options(const devices::DeviceInfo& device);

// The tile hints of `code`'s kernels: recorded ones from `cache` (may be null: nothing kept),
// else measured on `device` through `codegen` (the code generator compile() chose for it)
// within the options' budget.
gpu::TileHints measured_tiles(const LoweredProgram& code, devices::Device& device,
                              const GpuCodegen& codegen, const ArtifactTarget& target,
                              ArtifactCache* cache, const TileSearchOptions& options);

// The choice a cache record holds, when it is one of `candidates` (the kernel's candidates
// now): a record of another format, unreadable text or a choice the kernel no longer offers
// (tiles that would not fit the device) is no choice, and the kernel keeps the model's tiles.
std::optional<gpu::TileChoice> recorded_choice(const Artifact& record,
                                               const std::vector<gpu::TileChoice>& candidates);

}  // namespace plaidml::jit
