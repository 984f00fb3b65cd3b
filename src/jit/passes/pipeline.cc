#include "jit/passes/pipeline.h"

#include <chrono>
#include <functional>

#include <fmt/ranges.h>

#include "core/base/env.h"
#include "core/base/logging.h"
#include "jit/loop/printer.h"
#include "jit/loop/rewrite.h"
#include "jit/loop/verifier.h"
#include "jit/passes/coalesce_rows.h"
#include "jit/passes/register_block.h"
#include "jit/passes/row_fusion.h"
#include "jit/passes/simplify.h"
#include "jit/passes/split_reduction.h"

namespace plaidml::jit::passes {
namespace {

struct Pass {
  const char* name;  // kebab-case, as printed in dumps
  // slots: the program's, which a pass may append to (a packed constant).
  std::function<loop::Kernel(const loop::Kernel&, const PipelineOptions&,
                             std::vector<BufferSlot>& slots)>
      run;
};

// The pipeline, in order. The CPU passes leave kernels unchanged for other targets
// (PipelineOptions::cpu.vector_bits == 0); simplify runs again to fold what they expose.
const std::vector<Pass>& passes() {
  static const std::vector<Pass> kPasses = {
      {"simplify", [](const loop::Kernel& k, const PipelineOptions&,
                      std::vector<BufferSlot>&) { return simplify(k); }},
      {"coalesce-rows",
       [](const loop::Kernel& k, const PipelineOptions& o, std::vector<BufferSlot>&) {
         return coalesce_rows(k, o.cpu);
       }},
      {"register-block",
       [](const loop::Kernel& k, const PipelineOptions& o, std::vector<BufferSlot>& slots) {
         return register_block(k, o.cpu, &slots);
       }},
      {"split-reduction",
       [](const loop::Kernel& k, const PipelineOptions& o, std::vector<BufferSlot>&) {
         return split_reduction(k, o.cpu);
       }},
      {"simplify", [](const loop::Kernel& k, const PipelineOptions&,
                      std::vector<BufferSlot>&) { return simplify(k); }},
  };
  return kPasses;
}

std::vector<DType> slot_dtypes(const LoweredProgram& program) {
  std::vector<DType> out;
  for (const auto& s : program.slots) out.push_back(s.shape.dtype);
  return out;
}

void dump(const char* step, const LoweredProgram& program) {
  std::string text;
  for (const auto& k : program.kernels) text += loop::to_string(k);
  // warn: the default log level must show a dump the user asked for explicitly.
  logger().warn("PLAIDML_DUMP after {}:\n{}", step, text);
}

// Drops the constant slots that no kernel uses any more (a constant every reader of which now
// reads its packed copy), renumbering the others, so that nothing binds or counts them.
void drop_unused_constants(LoweredProgram& program) {
  std::vector<bool> used(program.slots.size(), false);
  for (const auto& k : program.kernels) {
    for (int s : k.reads) used[static_cast<size_t>(s)] = true;
    for (int s : k.writes) used[static_cast<size_t>(s)] = true;
  }
  std::vector<int> new_slot(program.slots.size(), -1);
  std::vector<BufferSlot> kept;
  for (size_t s = 0; s < program.slots.size(); ++s) {
    if (!used[s] && program.slots[s].role == BufferSlot::Role::kConstant) continue;
    new_slot[s] = static_cast<int>(kept.size());
    kept.push_back(program.slots[s]);
  }
  if (kept.size() == program.slots.size()) return;
  program.slots = std::move(kept);
  for (auto& k : program.kernels) {
    k.body = loop::renumber_slots(k.body, new_slot);
    for (int& s : k.reads) s = new_slot[static_cast<size_t>(s)];
    for (int& s : k.writes) s = new_slot[static_cast<size_t>(s)];
  }
}

}  // namespace

PipelineOptions default_pipeline_options() {
  PipelineOptions options;
  std::string value = env_string("PLAIDML_DUMP", "0");
  options.dump = !value.empty() && value != "0";
  return options;
}

std::vector<std::string> pipeline_pass_names() {
  std::vector<std::string> names;
  for (const auto& p : passes()) names.push_back(p.name);
  names.push_back("row-fusion");
  return names;
}

Status run_pipeline(LoweredProgram& program, const PipelineOptions& options) {
  auto check = [&](const char* step) -> Status {
    if (options.dump) dump(step, program);
    if (!options.verify) return Status::ok();
    std::vector<DType> dtypes = slot_dtypes(program);  // a pass may have added slots
    for (const auto& k : program.kernels) {
      PLAIDML_TRY(loop::verify(k, dtypes).with_context(std::string("after ") + step + ": "));
    }
    return Status::ok();
  };
  PLAIDML_TRY(check("lower"));
  for (const auto& pass : passes()) {
    auto start = std::chrono::steady_clock::now();
    for (auto& k : program.kernels) k = pass.run(k, options, program.slots);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    logger().debug("loop pass {}: {:.3f} ms on {} kernels", pass.name, ms,
                   program.kernels.size());
    PLAIDML_TRY(check(pass.name));
  }
  // Over the kernel list, once each kernel has its schedule: fused members keep their loops.
  std::vector<std::string> fused = fuse_rows(program.kernels, options.cpu);
  for (const auto& line : fused) logger().debug("row-fusion: {}", line);
  if (options.dump && !fused.empty()) {
    logger().warn("PLAIDML_DUMP row-fusion fused:\n  {}", fmt::join(fused, "\n  "));
  }
  PLAIDML_TRY(check("row-fusion"));
  drop_unused_constants(program);
  return Status::ok();
}

}  // namespace plaidml::jit::passes
