// Band-mapped kernels (spv_kernel.h): one invocation per iteration of the kernel's band, laid
// out by jit/codegen/gpu/band_launch.h as the OpenCL generator lays out work-items.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "jit/codegen/spirv/spv_kernel.h"

namespace plaidml::jit::spirv {

using loop::Stmt;
using spv::Op;

namespace {

Expected<LaunchDims> launch_dims(const std::array<BandDim, 3>& dims, const SpirvTarget& target,
                                 const std::string& kernel) {
  size_t d = 0;
  std::optional<LaunchDims> out = band_launch(dims, target.max_workgroup_size, &d);
  if (!out) {
    return make_error(StatusCode::kUnsupported,
                      "Vulkan kernel '{}': {} invocations in dimension {} exceed the "
                      "dispatch limit",
                      kernel, dims[d].extent, d);
  }
  return *out;
}

// Emits the invocation ids, the ragged-edge guard, the band variables and the band's body.
void emit_band(const std::array<BandDim, 3>& dims, const LaunchDims& launch, SpvEmitter& emitter,
               SpvBuilder& b, Builtins& builtins) {
  Id i64 = b.type_int(64, true);
  Id bt = b.type_bool();
  auto c64 = [&](int64_t v) { return b.const_int(64, true, static_cast<uint64_t>(v)); };
  std::array<Id, 3> ids = builtins.load(spv::BuiltIn::GlobalInvocationId);
  std::array<Id, 3> g = {0, 0, 0};
  Id beyond = 0;  // the invocation is past the band's end
  for (uint32_t d = 0; d < 3; ++d) {
    if (dims[d].loops.empty()) continue;
    Id wide = b.op(Op::OpUConvert, b.type_int(64, false), {ids[d]});
    g[d] = b.op(Op::OpBitcast, i64, {wide});
    uint64_t global = uint64_t{launch.grid[d]} * launch.workgroup[d];
    if (global == static_cast<uint64_t>(dims[d].extent)) continue;
    Id past = b.op(Op::OpSGreaterThanEqual, bt, {g[d], c64(dims[d].extent)});
    beyond = beyond == 0 ? past : b.op(Op::OpLogicalOr, bt, {beyond, past});
  }
  Id merge = 0;
  if (beyond != 0) {
    Id inside = b.new_id();
    merge = b.new_id();
    b.op_void(Op::OpSelectionMerge, {merge, 0});
    b.op_void(Op::OpBranchConditional, {beyond, merge, inside});
    b.label(inside);
  }
  for (size_t d = 0; d < 3; ++d) {
    const auto& loops = dims[d].loops;
    Id id = g[d];
    for (size_t j = loops.size(); j-- > 0;) {  // innermost first: its id is the remainder
      const Stmt& loop = *loops[j];
      int64_t trips = trip_count(loop);
      Id pos = j == 0 ? id : b.op(Op::OpSRem, i64, {id, c64(trips)});
      Id value = loop.step == 1 ? pos : b.op(Op::OpIMul, i64, {pos, c64(loop.step)});
      if (loop.lo->int_value != 0) value = b.op(Op::OpIAdd, i64, {value, c64(loop.lo->int_value)});
      emitter.bind_value(loop.var, value);
      if (j > 0) id = b.op(Op::OpSDiv, i64, {id, c64(trips)});
    }
  }
  emitter.body(dims[0].loops[0]->body);
  if (merge != 0) {
    b.op_void(Op::OpBranch, {merge});
    b.label(merge);
  }
}

}  // namespace

Expected<LaunchDims> emit_kernel(const loop::Kernel& kernel, const SpirvTarget& target,
                                 SpvEmitter& emitter, SpvBuilder& b, Builtins& builtins) {
  std::vector<const Stmt*> band = loop::find_band(kernel);
  LaunchDims launch;
  Id fn = b.begin_function();
  // Top-level statements share the function's scope, as in the OpenCL kernel's body.
  for (const auto& s : kernel.body->body) {
    if (band.empty() || s.get() != band[0]) {
      emitter.stmt(*s);
      continue;
    }
    std::array<BandDim, 3> dims = map_band(band);
    PLAIDML_ASSIGN(launch, launch_dims(dims, target, kernel.name));
    emit_band(dims, launch, emitter, b, builtins);
  }
  b.op_void(Op::OpReturn, {});
  b.end_function();
  if (!emitter.status().is_ok()) {
    return emitter.status().with_context(fmt::format("Vulkan kernel '{}': ", kernel.name));
  }
  declare_entry(b, fn, kernel.name, {builtins.get(spv::BuiltIn::GlobalInvocationId)}, launch,
                target);
  return launch;
}

}  // namespace plaidml::jit::spirv
