// Band-mapped kernels (spv_kernel.h): one invocation per iteration of the kernel's band, laid
// out as cl_kernel_simple.cc lays out work-items (consecutive invocations of x touch
// consecutive elements; dim 2 holds at most 64 threads, Vulkan's guaranteed minimum).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "jit/codegen/spirv/spv_kernel.h"

namespace plaidml::jit::spirv {

using loop::Stmt;
using spv::Op;

namespace {

constexpr int64_t kMaxThreads = 256;
constexpr int64_t kMaxDim2Threads = 64;

int64_t trip_count(const Stmt& loop) {
  int64_t span = loop.hi->int_value - loop.lo->int_value;
  return span <= 0 ? 0 : (span + loop.step - 1) / loop.step;
}

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

// Invocation dim d runs the band loops dims[d] (outermost first) over `extent` invocations.
struct Dim {
  std::vector<const Stmt*> loops;
  int64_t extent = 1;
};

std::array<Dim, 3> map_band(const std::vector<const Stmt*>& band) {
  std::array<Dim, 3> dims;
  size_t n = band.size();
  dims[0].loops = {band[n - 1]};
  if (n >= 2) dims[1].loops = {band[n - 2]};
  if (n >= 3) dims[2].loops.assign(band.begin(), band.end() - 2);
  for (Dim& d : dims) {
    for (const Stmt* loop : d.loops) {
      int64_t e = trip_count(*loop);
      bool overflow = e != 0 && d.extent > std::numeric_limits<int64_t>::max() / e;
      d.extent = overflow ? std::numeric_limits<int64_t>::max() : d.extent * e;
    }
  }
  return dims;
}

Expected<LaunchDims> launch_dims(const std::array<Dim, 3>& dims, const SpirvTarget& target,
                                 const std::string& kernel) {
  LaunchDims out;
  int64_t budget = floor_pow2(std::clamp<int64_t>(target.max_workgroup_size, 1, kMaxThreads));
  for (size_t d = 0; d < 3; ++d) {
    int64_t extent = std::max<int64_t>(dims[d].extent, 1);
    int64_t wg = std::min(ceil_pow2(std::min(extent, kMaxThreads)), budget);
    if (d == 2) wg = std::min(wg, kMaxDim2Threads);
    budget /= wg;
    int64_t grid = (extent + wg - 1) / wg;
    if (grid > std::numeric_limits<uint32_t>::max()) {
      return make_error(StatusCode::kUnsupported,
                        "Vulkan kernel '{}': {} invocations in dimension {} exceed the "
                        "dispatch limit",
                        kernel, dims[d].extent, d);
    }
    out.workgroup[d] = static_cast<uint32_t>(wg);
    out.grid[d] = static_cast<uint32_t>(grid);
  }
  return out;
}

// Emits the invocation ids, the ragged-edge guard, the band variables and the band's body.
void emit_band(const std::array<Dim, 3>& dims, const LaunchDims& launch, SpvEmitter& emitter,
               SpvBuilder& b, Id invocation_id) {
  Id u32 = b.type_int(32, false);
  Id i64 = b.type_int(64, true);
  Id bt = b.type_bool();
  auto c64 = [&](int64_t v) { return b.const_int(64, true, static_cast<uint64_t>(v)); };
  Id ids = b.op(Op::OpLoad, b.type_vector(u32, 3), {invocation_id});
  std::array<Id, 3> g = {0, 0, 0};
  Id beyond = 0;  // the invocation is past the band's end
  for (uint32_t d = 0; d < 3; ++d) {
    if (dims[d].loops.empty()) continue;
    Id component = b.op(Op::OpCompositeExtract, u32, {ids, d});
    Id wide = b.op(Op::OpUConvert, b.type_int(64, false), {component});
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
                                 SpvEmitter& emitter, SpvBuilder& b, Id invocation_id) {
  std::vector<const Stmt*> band = loop::find_band(kernel);
  LaunchDims launch;
  Id fn = b.begin_function();
  // Top-level statements share the function's scope, as in the OpenCL kernel's body.
  for (const auto& s : kernel.body->body) {
    if (band.empty() || s.get() != band[0]) {
      emitter.stmt(*s);
      continue;
    }
    std::array<Dim, 3> dims = map_band(band);
    PLAIDML_ASSIGN(launch, launch_dims(dims, target, kernel.name));
    emit_band(dims, launch, emitter, b, invocation_id);
  }
  b.op_void(Op::OpReturn, {});
  b.end_function();
  if (!emitter.status().is_ok()) {
    return emitter.status().with_context(fmt::format("Vulkan kernel '{}': ", kernel.name));
  }
  b.entry_point(fn, kernel.name, {invocation_id});
  b.local_size(fn, launch.workgroup[0], launch.workgroup[1], launch.workgroup[2]);
  b.name(fn, kernel.name);
  if (target.float_controls) {
    b.capability(spv::Capability::SignedZeroInfNanPreserve);
    b.extension("SPV_KHR_float_controls");
    b.execution_mode(fn, spv::ExecutionMode::SignedZeroInfNanPreserve, {32});
    if (target.float64) b.execution_mode(fn, spv::ExecutionMode::SignedZeroInfNanPreserve, {64});
  }
  return launch;
}

}  // namespace plaidml::jit::spirv
