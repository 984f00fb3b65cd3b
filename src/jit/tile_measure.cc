// The measured tile search (tile_measure.h).
#include "jit/tile_measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/env.h"
#include "core/base/logging.h"
#include "jit/launch_params.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kTileFormat = "tile-choice";
// Each candidate is timed kRounds times over about kTimedSeconds (at least one launch, at most
// kMaxRepeats), after kWarmUpSeconds of launches that bring the GPU's clock up.
constexpr double kTimedSeconds = 0.002;
constexpr int kMaxRepeats = 20;
constexpr int kRounds = 3;
constexpr double kWarmUpSeconds = 0.02;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The kernel alone over its own parameters, renumbered 0..n-1 in parameter order: the
// program the candidates are built as, and (named "tile") the key of its recorded choice.
LoweredProgram alone(const std::vector<BufferSlot>& slots, const loop::Kernel& kernel) {
  const std::vector<int> params = loop::parameters(kernel);
  std::vector<int> renumber(slots.size(), -1);
  LoweredProgram out;
  for (size_t i = 0; i < params.size(); ++i) {
    renumber[static_cast<size_t>(params[i])] = static_cast<int>(i);
    out.slots.push_back(slots[static_cast<size_t>(params[i])]);
  }
  loop::Kernel k = kernel;
  k.body = loop::renumber_slots(kernel.body, renumber);
  for (int& s : k.reads) s = renumber[static_cast<size_t>(s)];
  for (int& s : k.writes) s = renumber[static_cast<size_t>(s)];
  out.kernels.push_back(std::move(k));
  return out;
}

ArtifactKey choice_key(LoweredProgram program, const ArtifactTarget& target) {
  // Where the buffers come from (an input, an output, a temporary) does not change the code
  // the GPU emitters print: only the kernel, the slots' dtypes and shapes, the target.
  program.kernels[0].name = "tile";
  for (size_t i = 0; i < program.slots.size(); ++i) {
    program.slots[i].role = BufferSlot::Role::kTemp;
    program.slots[i].index = static_cast<int>(i);
  }
  ArtifactTarget t = target;
  t.format = std::string(kTileFormat) + ":" + target.format;
  return make_artifact_key(program, t);
}

std::string choice_text(const gpu::TileChoice& c) {
  return fmt::format("{} {} {} {} {}", c.tx, c.ty, c.rn, c.rm, c.bk);
}

// Zeroed device buffers for the program's slots (zeros: no denormals or NaNs to slow a
// candidate down).
Expected<std::vector<std::unique_ptr<devices::DeviceBuffer>>> scratch(
    devices::Device& device, const std::vector<BufferSlot>& slots) {
  std::vector<std::unique_ptr<devices::DeviceBuffer>> out;
  const std::vector<uint8_t> zeros(size_t{1} << 20, 0);
  for (const BufferSlot& slot : slots) {
    const uint64_t bytes = std::max<uint64_t>(1, static_cast<uint64_t>(slot.shape.byte_size()));
    PLAIDML_ASSIGN(auto buffer, device.allocate(bytes));
    for (uint64_t at = 0; at < bytes; at += zeros.size()) {
      PLAIDML_TRY(
          device.write(*buffer, at, zeros.data(), std::min<uint64_t>(zeros.size(), bytes - at)));
    }
    out.push_back(std::move(buffer));
  }
  return out;
}

// One candidate's launch on the scratch buffers.
struct Launch {
  devices::LaunchParams params;
  int repeats = 1;
  double best = 0;  // seconds per launch, the fastest round
};

// Seconds per launch over `times` launches.
Expected<double> time_launch(devices::Device& device, const devices::Executable& exe,
                             const Launch& l, int times,
                             const std::vector<const devices::DeviceBuffer*>& args) {
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < times; ++i) PLAIDML_TRY(device.launch(exe, l.params, args));
  PLAIDML_TRY(device.synchronize());
  return seconds_since(start) / times;
}

// Each candidate's fastest round. The candidates take turns, round after round, after a
// warm-up: an idle GPU clocks up over the first milliseconds of work, and timing them one
// after the other would favour the last.
Status time_candidates(devices::Device& device, const devices::Executable& exe,
                       std::vector<Launch>& launches,
                       const std::vector<const devices::DeviceBuffer*>& args) {
  for (Launch& l : launches) {
    PLAIDML_TRY(time_launch(device, exe, l, 1, args).status());  // the driver's lazy set-up
    PLAIDML_ASSIGN(double once, time_launch(device, exe, l, 1, args));
    l.repeats = std::clamp(static_cast<int>(kTimedSeconds / std::max(once, 1e-6)), 1, kMaxRepeats);
  }
  const Clock::time_point warm = Clock::now();
  while (seconds_since(warm) < kWarmUpSeconds) {
    PLAIDML_TRY(time_launch(device, exe, launches[0], launches[0].repeats, args).status());
  }
  for (int round = 0; round < kRounds; ++round) {
    for (Launch& l : launches) {
      PLAIDML_ASSIGN(double s, time_launch(device, exe, l, l.repeats, args));
      l.best = round == 0 ? s : std::min(l.best, s);
    }
  }
  return Status::ok();
}

// The fastest of `candidates` for the kernel of `program` (a one-kernel program).
Expected<gpu::TileChoice> measure(const LoweredProgram& program,
                                  const std::vector<gpu::TileChoice>& candidates,
                                  devices::Device& device, const GpuCodegen& codegen) {
  LoweredProgram all;
  all.slots = program.slots;
  gpu::TileHints hints;
  for (size_t i = 0; i < candidates.size(); ++i) {
    loop::Kernel k = program.kernels[0];
    k.name = fmt::format("{}_t{}", k.name, i);
    hints.by_kernel[k.name] = candidates[i];
    all.kernels.push_back(std::move(k));
  }
  PLAIDML_ASSIGN(Artifact artifact, codegen.emit(all, hints));
  std::vector<std::string> symbols;
  std::vector<Launch> launches;
  for (size_t i = 0; i < artifact.kernels.size(); ++i) {
    symbols.push_back(artifact.kernels[i].symbol);
    launches.push_back(Launch{launch_params(artifact.kernels[i], static_cast<uint32_t>(i))});
  }
  PLAIDML_ASSIGN(auto exe, device.load(artifact.format, artifact.bytes, symbols));
  PLAIDML_ASSIGN(auto buffers, scratch(device, all.slots));
  std::vector<const devices::DeviceBuffer*> args;
  for (const auto& b : buffers) args.push_back(b.get());
  PLAIDML_TRY(time_candidates(device, *exe, launches, args));
  size_t best = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    logger().debug("tile search: {} tiles {}: {:.1f} us", program.kernels[0].name,
                   choice_text(candidates[i]), launches[i].best * 1e6);
    if (launches[i].best < launches[best].best) best = i;
  }
  return candidates[best];
}

}  // namespace

std::optional<gpu::TileChoice> recorded_choice(const Artifact& record,
                                               const std::vector<gpu::TileChoice>& candidates) {
  gpu::TileChoice c;
  const std::string text(record.bytes.begin(), record.bytes.end());
  char rest = 0;
  if (record.format != kTileFormat ||
      std::sscanf(text.c_str(), "%d %d %d %d %d %c", &c.tx, &c.ty, &c.rn, &c.rm, &c.bk, &rest) !=
          5 ||
      std::find(candidates.begin(), candidates.end(), c) == candidates.end()) {
    return std::nullopt;
  }
  return c;
}

TileSearchOptions tile_search_options(const devices::DeviceInfo& device) {
  TileSearchOptions o;
  const std::string asked = env_string("PLAIDML_GPU_TILE_SEARCH", "");
  o.enabled = asked.empty() ? device.kind == "gpu" : asked != "0" && asked != "off";
  if (auto seconds = env_int("PLAIDML_GPU_TILE_SEARCH_SECONDS")) {
    o.budget_seconds = static_cast<double>(std::max<int64_t>(0, *seconds));
  }
  return o;
}

gpu::TileHints measured_tiles(const LoweredProgram& code, devices::Device& device,
                              const GpuCodegen& codegen, const ArtifactTarget& target,
                              ArtifactCache* cache, const TileSearchOptions& options) {
  gpu::TileHints hints;
  if (!options.enabled) return hints;
  const Clock::time_point start = Clock::now();
  int measured = 0;
  // The heaviest kernels first: where the budget runs out, the ones left matter least.
  std::vector<const loop::Kernel*> order;
  for (const loop::Kernel& kernel : code.kernels) {
    if (kernel.work >= options.min_work) order.push_back(&kernel);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const loop::Kernel* a, const loop::Kernel* b) { return a->work > b->work; });
  for (const loop::Kernel* heaviest : order) {
    const loop::Kernel& kernel = *heaviest;
    std::vector<gpu::TileChoice> candidates =
        gpu::tiled_candidates(kernel, codegen.limits, codegen.dispatch, options.max_candidates);
    if (candidates.size() < 2) continue;
    const LoweredProgram one = alone(code.slots, kernel);
    const bool in_budget = seconds_since(start) < options.budget_seconds;
    // The measurement, as the cache's generator: it runs only where no choice is recorded.
    auto generate = [&]() -> Expected<Artifact> {
      if (!in_budget) return Status(StatusCode::kUnsupported, "the search's time budget is spent");
      PLAIDML_ASSIGN(gpu::TileChoice best, measure(one, candidates, device, codegen));
      ++measured;
      Artifact a;
      a.format = kTileFormat;
      const std::string text = choice_text(best);
      a.bytes.assign(text.begin(), text.end());
      return a;
    };
    Expected<Artifact> choice = Status(StatusCode::kInternal, "unset");
    if (cache) {
      auto found = cache->get_or_generate(choice_key(one, target), generate);
      choice = found ? Expected<Artifact>(*found->artifact) : found.status();
    } else {
      choice = generate();
    }
    std::optional<gpu::TileChoice> parsed =
        choice ? recorded_choice(*choice, candidates) : std::nullopt;
    if (!parsed) {
      logger().debug(
          "tile search: {} keeps the model's tiles ({})", kernel.name,
          choice ? "a record that is not one of its candidates" : choice.status().message());
      continue;
    }
    hints.by_kernel[kernel.name] = *parsed;
  }
  if (measured > 0) {
    logger().info("tile search on {}: {} kernels measured in {:.2f} s", device.id(), measured,
                  seconds_since(start));
  }
  return hints;
}

}  // namespace plaidml::jit
