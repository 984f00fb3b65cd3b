// The memory plan (jit/memory_plan.h): which temporaries share a block, the arena's size against
// hand-computed lifetimes; the figures a compiled plan reports; and a program too large for its
// device refused with OUT_OF_MEMORY before anything runs. (Every conformance and ONNX case also
// runs with the arena poisoned: PLAIDML_DEBUG_POISON_ARENA.)
#include <doctest/doctest.h>

#include "jit/memory_plan.h"
#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// A lowered program of slots (role, bytes as a u8 vector) and kernels (reads, writes); the
// plan looks at nothing else.
struct Sketch {
  jit::LoweredProgram lowered;
  int slot(jit::BufferSlot::Role role, int64_t bytes) {
    lowered.slots.push_back({role, 0, Shape(DType::U8, {bytes})});
    return static_cast<int>(lowered.slots.size()) - 1;
  }
  void kernel(std::vector<int> reads, std::vector<int> writes) {
    jit::loop::Kernel k;
    k.reads = std::move(reads);
    k.writes = std::move(writes);
    lowered.kernels.push_back(std::move(k));
  }
};

using Role = jit::BufferSlot::Role;

}  // namespace

TEST_CASE("memory plan: a chain reuses the block of a temporary after its last reader") {
  Sketch s;
  int in = s.slot(Role::kInput, 8), out = s.slot(Role::kOutput, 8);
  int t1 = s.slot(Role::kTemp, 100), t2 = s.slot(Role::kTemp, 50), t3 = s.slot(Role::kTemp, 200);
  s.kernel({in}, {t1});
  s.kernel({t1}, {t2});  // t1 and t2 live together here
  s.kernel({t2}, {t3});  // t1 is dead: t3 takes its block, grown to 200
  s.kernel({t3}, {out});
  jit::MemoryPlan plan = jit::plan_memory(s.lowered);
  CHECK(plan.block_of[in] == -1);
  CHECK(plan.block_of[out] == -1);
  CHECK(plan.block_of[t1] == plan.block_of[t3]);
  CHECK(plan.block_of[t1] != plan.block_of[t2]);
  CHECK(plan.block_bytes.size() == 2);
  CHECK(plan.arena_bytes == 250);
  CHECK(plan.unshared_bytes == 350);
  CHECK(plan.first_kernel[t3] == 2);
  jit::MemoryFigures f = jit::memory_figures(s.lowered, plan);
  CHECK(f.inputs_bytes == 8);
  CHECK(f.outputs_bytes == 8);
  CHECK(f.peak_bytes() == 266);
}

TEST_CASE("memory plan: the smallest free block that fits, a kernel's operands never share") {
  Sketch s;
  int in = s.slot(Role::kInput, 8), out = s.slot(Role::kOutput, 8);
  int big = s.slot(Role::kTemp, 400), small = s.slot(Role::kTemp, 100);
  int fits_small = s.slot(Role::kTemp, 90), joined = s.slot(Role::kTemp, 10);
  s.kernel({in}, {big, small});
  s.kernel({big, small}, {out});  // both die here...
  s.kernel({in}, {fits_small});   // ...so 90 bytes take the 100-byte block, not the 400
  s.kernel({fits_small}, {joined});
  s.kernel({joined, fits_small}, {out});
  jit::MemoryPlan plan = jit::plan_memory(s.lowered);
  CHECK(plan.block_of[big] != plan.block_of[small]);
  CHECK(plan.block_of[fits_small] == plan.block_of[small]);
  CHECK(plan.block_of[joined] == plan.block_of[big]);
  CHECK(plan.arena_bytes == 500);
}

TEST_CASE("memory figures of a compiled plan, a program larger than the device is refused") {
  auto rt = make_runtime();
  // Two contractions whose results a third kernel reads: two temporaries.
  auto program = parse_program(R"(
function (A[N], B[N]) -> (C) {
  S[i : N] = +(A[i] + B[i]);
  T[i : N] = +(S[i] * A[i]);
  C = T - S;
}
)");
  auto plan = rt->prepare(program, {{DType::F32, {1000}}, {DType::F32, {1000}}}, 0);
  REQUIRE(plan.has_value());
  const jit::MemoryFigures& m = (*plan)->memory();
  CHECK(m.inputs_bytes == 8000);
  CHECK(m.outputs_bytes == 4000);
  CHECK(m.constants_bytes == 0);
  CHECK(m.arena_bytes <= m.unshared_bytes);
  CHECK(m.peak_bytes() == m.inputs_bytes + m.outputs_bytes + m.arena_bytes);

  // An output of 2^50 floats (4 PiB): refused with the figures before allocating anything.
  auto huge = parse_program(R"(
function (A[N]) -> (C) {
  C[i, j : 1125899906842624, N] = +(A[j]);
}
)");
  auto a = upload(*rt, random_tensor({DType::F32, {4}}, 1));
  NamedBuffers out;
  Status s = jit::run_by_name(*rt, huge, 0, {{"A", a}}, &out);
  CHECK(s.code() == StatusCode::kOutOfMemory);
  INFO(s.message());
  CHECK(s.message().rfind("running 'test' on cpu:0 needs 16.0 PiB (inputs 16 B, outputs "
                          "16.0 PiB, intermediates 0 B, constants 0 B), but the context's memory "
                          "limit is ",
                          0) == 0);
  CHECK(out.empty());
}
