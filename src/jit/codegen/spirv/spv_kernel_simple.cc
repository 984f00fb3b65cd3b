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

// The integer type band positions are computed in: i32 when the program's indices are (the
// band variables are then bound to i32 values) and every dimension's flattened extent fits.
struct BandInt {
  int bits = 64;
  Id type = 0;
  Id c(SpvBuilder& b, int64_t v) const { return b.const_int(bits, true, static_cast<uint64_t>(v)); }
};

BandInt band_int(const std::array<BandDim, 3>& dims, const SpvEmitter& emitter, SpvBuilder& b) {
  bool fits = emitter.index32();
  for (const BandDim& d : dims) fits = fits && d.extent <= std::numeric_limits<int32_t>::max();
  BandInt t;
  t.bits = fits ? 32 : 64;
  t.type = b.type_int(t.bits, true);
  return t;
}

// Whether invocation `id` (u32) lies past the extent of dimension d; 0 when none can. Compared
// unsigned, before any conversion: ids past an i32 extent may exceed INT32_MAX.
Id past_band(const BandDim& dim, uint64_t global, Id id, SpvBuilder& b) {
  uint64_t extent = static_cast<uint64_t>(dim.extent);
  if (global == extent || extent > std::numeric_limits<uint32_t>::max()) return 0;
  return b.op(Op::OpUGreaterThanEqual, b.type_bool(), {id, b.const_int(32, false, extent)});
}

// Binds the band variables of dimension d, decoded from the non-negative position `id`
// (innermost loop first: its position is the remainder).
void bind_band(const BandDim& dim, Id id, const BandInt& t, SpvEmitter& emitter, SpvBuilder& b) {
  const auto& loops = dim.loops;
  for (size_t j = loops.size(); j-- > 0;) {
    const Stmt& loop = *loops[j];
    int64_t trips = trip_count(loop);
    Id pos = j == 0 ? id : b.op(Op::OpSRem, t.type, {id, t.c(b, trips)});
    Id value = loop.step == 1 ? pos : b.op(Op::OpIMul, t.type, {pos, t.c(b, loop.step)});
    if (loop.lo->int_value != 0) {
      value = b.op(Op::OpIAdd, t.type, {value, t.c(b, loop.lo->int_value)});
    }
    // An i64 position in an index32 program: the variable's own values fit int32.
    if (t.bits == 64 && emitter.index32()) {
      value = b.op(Op::OpSConvert, emitter.index_type(), {value});
    }
    emitter.bind_value(loop.var, value);
    if (j > 0) id = b.op(Op::OpSDiv, t.type, {id, t.c(b, trips)});
  }
}

// Emits the invocation ids, the ragged-edge guard, the band variables and the band's body.
void emit_band(const std::array<BandDim, 3>& dims, const LaunchDims& launch, SpvEmitter& emitter,
               SpvBuilder& b, Builtins& builtins) {
  const BandInt t = band_int(dims, emitter, b);
  std::array<Id, 3> ids = builtins.load(spv::BuiltIn::GlobalInvocationId);
  Id beyond = 0;  // the invocation is past the band's end
  for (uint32_t d = 0; d < 3; ++d) {
    if (dims[d].loops.empty()) continue;
    Id past = past_band(dims[d], uint64_t{launch.grid[d]} * launch.workgroup[d], ids[d], b);
    if (past == 0) continue;
    beyond = beyond == 0 ? past : b.op(Op::OpLogicalOr, b.type_bool(), {beyond, past});
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
    if (dims[d].loops.empty()) continue;
    // Inside the band the id is below its extent: as i32 (extent <= INT32_MAX) or
    // zero-extended to i64.
    Id id = t.bits == 32 ? b.op(Op::OpBitcast, t.type, {ids[d]})
                         : b.op(Op::OpBitcast, t.type,
                                {b.op(Op::OpUConvert, b.type_int(64, false), {ids[d]})});
    bind_band(dims[d], id, t, emitter, b);
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
