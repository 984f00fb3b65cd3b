// End-to-end harness of the CPU code generator without the runtime: Tile text -> parse -> bind
// -> lower -> loop passes -> LLVM object -> ORC load -> call every kernel on host buffers, with
// the parallel loop split in two calls to exercise [begin, end). Results are compared with the
// reference interpreter (eval::evaluate).
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "devices/cpu/orc_loader.h"
#include "jit/codegen/llvm/llvm_codegen.h"
#include "jit/loop/printer.h"
#include "jit/lower/lower.h"
#include "jit/lower/panel_packing.h"
#include "jit/passes/pipeline.h"
#include "support/tensors.h"

namespace plaidml::jit::testing {

inline devices::cpu::OrcLoader& loader() {
  static std::unique_ptr<devices::cpu::OrcLoader> instance = [] {
    auto l = devices::cpu::OrcLoader::create();
    REQUIRE_MESSAGE(l.has_value(), l.status().message());
    return std::move(*l);
  }();
  return *instance;
}

inline const TargetDesc& target() {
  static TargetDesc t = host_target();
  return t;
}

// The CPU passes' view of this host, as the CPU device with 2 threads sees it.
inline passes::CpuTarget host_cpu() { return passes::cpu_target_for(target().vector_bits, 2); }

// A constant slot's contents: the node's values, packed as the slot says.
inline HostTensor constant_buffer(const ir::Program& program, const BufferSlot& slot) {
  const ir::ConstantData& c = *program.nodes.at(static_cast<size_t>(slot.index)).constant;
  HostTensor t(slot.shape);
  if (slot.packing.packed()) {
    t.bytes = pack_panels(c.data, dtype_size(c.shape.dtype), slot.packing);
  } else {
    std::memcpy(t.bytes.data(), c.data, t.bytes.size());
  }
  return t;
}

// Compiles (scheduled for `cpu`, code generated on `threads` threads in parts of at least
// `min_part_weight`, kernel_partition.h) and runs; returns the outputs or the first error.
inline Expected<std::vector<HostTensor>> run_jit(const ir::BoundProgram& bound,
                                                 const std::vector<HostTensor>& inputs,
                                                 const passes::CpuTarget& cpu = host_cpu(),
                                                 int threads = 1,
                                                 size_t min_part_weight = llvmgen::kMinPartWeight) {
  PLAIDML_ASSIGN(LoweredProgram lowered, lower(bound));
  passes::PipelineOptions options = passes::default_pipeline_options();
  options.cpu = cpu;
  PLAIDML_TRY(passes::run_pipeline(lowered, options));
  PLAIDML_ASSIGN(Artifact artifact, emit_llvm_object(lowered, target(), threads, min_part_weight));
  std::vector<std::string> symbols;
  for (const auto& k : artifact.kernels) symbols.push_back(k.symbol);
  PLAIDML_ASSIGN(auto object, loader().load(artifact.bytes, symbols));
  std::vector<HostTensor> buffers;
  for (const auto& slot : lowered.slots) {
    if (slot.role == BufferSlot::Role::kInput) {
      buffers.push_back(inputs[slot.index]);
    } else if (slot.role == BufferSlot::Role::kConstant) {
      buffers.push_back(constant_buffer(*bound.program, slot));
    } else {
      HostTensor t(slot.shape);
      std::fill(t.bytes.begin(), t.bytes.end(), uint8_t{0xA5});  // garbage: kernels must init
      buffers.push_back(std::move(t));
    }
  }
  for (size_t k = 0; k < artifact.kernels.size(); ++k) {
    std::vector<void*> args;  // the kernel's parameters (loop::parameters), in order
    for (int s : loop::parameters(lowered.kernels[k])) args.push_back(buffers[s].bytes.data());
    int64_t extent = artifact.kernels[k].parallel_extent;
    int64_t mid = extent / 2;
    object->kernels()[k](args.data(), mid, extent);  // out of order on purpose
    if (mid > 0) object->kernels()[k](args.data(), 0, mid);
  }
  std::vector<HostTensor> outputs(bound.program->outputs.size());
  for (size_t s = 0; s < lowered.slots.size(); ++s) {
    if (lowered.slots[s].role == BufferSlot::Role::kOutput) {
      outputs[lowered.slots[s].index] = std::move(buffers[s]);
    }
  }
  return outputs;
}

inline ir::BoundProgram bind_tile(const std::string& text, const std::vector<Shape>& shapes) {
  auto program = parse::parse_tile(text);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  return std::move(*bound);
}

// Runs `bound` on `inputs` through the JIT and the interpreter and checks every output (within
// `tolerance`, else compare_tensors' default); `what` names the program in failures.
inline std::vector<HostTensor> check_bound_against_interpreter(
    const ir::BoundProgram& bound, const std::vector<HostTensor>& inputs,
    const passes::CpuTarget& cpu, const std::string& what,
    std::optional<plaidml::testing::Tolerance> tolerance = std::nullopt) {
  auto expected = eval::evaluate(bound, inputs);
  REQUIRE_MESSAGE(expected.has_value(), expected.status().message());
  auto actual = run_jit(bound, inputs, cpu);
  REQUIRE_MESSAGE(actual.has_value(), actual.status().message());
  REQUIRE(actual->size() == expected->size());
  for (size_t o = 0; o < expected->size(); ++o) {
    std::string report =
        plaidml::testing::compare_tensors((*actual)[o], (*expected)[o], tolerance);
    CHECK_MESSAGE(report.empty(), what, "\noutput ", o, ": ", report);
  }
  return std::move(*actual);
}

// Runs `text` on `inputs` through the JIT and the interpreter and checks every output.
inline std::vector<HostTensor> check_against_interpreter(
    const std::string& text, const std::vector<HostTensor>& inputs,
    const passes::CpuTarget& cpu = host_cpu()) {
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape);
  return check_bound_against_interpreter(bind_tile(text, shapes), inputs, cpu, text);
}

// A lowered program after the loop passes (scheduled for `cpu`, verified after every pass), and
// its kernels' text.
struct Scheduled {
  LoweredProgram lowered;
  std::string text;
};

inline Scheduled schedule(const ir::BoundProgram& bound, const passes::CpuTarget& cpu) {
  auto lowered = lower(bound);
  REQUIRE_MESSAGE(lowered.has_value(), lowered.status().message());
  passes::PipelineOptions options;
  options.cpu = cpu;
  Status status = passes::run_pipeline(*lowered, options);
  REQUIRE_MESSAGE(status.is_ok(), status.message());
  std::string text;
  for (const auto& k : lowered->kernels) text += loop::to_string(k);
  return {std::move(*lowered), std::move(text)};
}

inline HostTensor random(DType dtype, std::vector<int64_t> dims, uint64_t seed) {
  return plaidml::testing::random_tensor(Shape(dtype, std::move(dims)), seed);
}

// F32 values in [0, 1): sums without cancellation, so FMA contraction stays within the default
// tolerance however many terms a sum has.
inline HostTensor positive(std::vector<int64_t> dims, uint64_t seed) {
  return plaidml::testing::random_tensor(Shape(DType::F32, std::move(dims)), seed, {0.0, 1.0});
}

}  // namespace plaidml::jit::testing
