// The plan cache as users see it through Runtime::stats(), and the PlanCache itself.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "jit/plan_cache.h"
#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr const char* kAddMul = R"(
function (A[N], B[N]) -> (C) {
  C = A * B + A;
}
)";

void run_once(jit::Runtime& rt, const std::shared_ptr<const ir::Program>& program, int64_t n) {
  run_and_check(rt, program,
                {random_tensor({DType::F32, {n}}, 1), random_tensor({DType::F32, {n}}, 2)});
}

// A Plan stand-in for PlanCache unit tests.
class FakePlan : public jit::Plan {
 public:
  const std::vector<Shape>& input_shapes() const override { return shapes_; }
  const std::vector<Shape>& output_shapes() const override { return shapes_; }
  int kernel_count() const override { return 0; }
  int device() const override { return 0; }
  const jit::MemoryFigures& memory() const override { return memory_; }

 private:
  std::vector<Shape> shapes_;
  jit::MemoryFigures memory_;
};

}  // namespace

TEST_CASE("plan cache: same shapes compile once, then hit") {
  auto rt = make_runtime();
  auto program = parse_program(kAddMul);
  run_once(*rt, program, 5);
  CHECK(rt->stats().compiles == 1);
  CHECK(rt->stats().cache_hits == 0);
  CHECK(rt->stats().compile_seconds > 0);
  CHECK(rt->stats().last_compile_seconds > 0);
  run_once(*rt, program, 5);
  run_once(*rt, program, 5);
  CHECK(rt->stats().compiles == 1);
  CHECK(rt->stats().cache_hits == 2);
}

TEST_CASE("plan cache: a new shape compiles once, a new dtype too, old shapes still hit") {
  auto rt = make_runtime();
  auto program = parse_program(kAddMul);
  run_once(*rt, program, 5);
  run_once(*rt, program, 7);
  CHECK(rt->stats().compiles == 2);
  run_once(*rt, program, 7);
  run_once(*rt, program, 5);
  CHECK(rt->stats().compiles == 2);
  CHECK(rt->stats().cache_hits == 2);
  run_and_check(*rt, program,
                {random_tensor({DType::F64, {5}}, 1), random_tensor({DType::F64, {5}}, 2)});
  CHECK(rt->stats().compiles == 3);
}

TEST_CASE("plan cache: prepare returns the same plan for the same key") {
  auto rt = make_runtime();
  auto program = parse_program(kAddMul);
  std::vector<Shape> shapes = {{DType::F32, {4}}, {DType::F32, {4}}};
  auto p1 = rt->prepare(program, shapes, 0);
  REQUIRE(p1.has_value());
  auto p2 = rt->prepare(program, shapes, 0);
  REQUIRE(p2.has_value());
  CHECK(p1->get() == p2->get());
  CHECK((*p1)->output_shapes() == std::vector<Shape>{{DType::F32, {4}}});
  CHECK((*p1)->input_shapes() == shapes);
  CHECK((*p1)->kernel_count() >= 1);
  CHECK((*p1)->device() == 0);
  // The same program text parsed again has the same fingerprint: still a hit.
  auto again = rt->prepare(parse_program(kAddMul), shapes, 0);
  REQUIRE(again.has_value());
  CHECK(again->get() == p1->get());
  CHECK(rt->stats().compiles == 1);
  CHECK(rt->stats().cache_hits == 2);
}

TEST_CASE("plan cache: 8 threads racing on a first call compile once") {
  auto rt = make_runtime();
  auto program = parse_program(kAddMul);
  std::vector<HostTensor> in = {random_tensor({DType::F32, {33}}, 3),
                                random_tensor({DType::F32, {33}}, 4)};
  auto want = reference(program, in);
  auto a = upload(*rt, in[0]);
  auto b = upload(*rt, in[1]);
  std::atomic<int> ready{0}, ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      ready++;
      while (ready.load() < 8) std::this_thread::yield();
      NamedBuffers out;
      if (!jit::run_by_name(*rt, program, 0, {{"A", a}, {"B", b}}, &out).is_ok()) return;
      HostTensor got(out[0].second->shape());
      if (rt->read(*out[0].second, got.bytes.data(), got.bytes.size()).is_ok() &&
          got.bytes == want[0].bytes) {
        ok++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(ok.load() == 8);
  CHECK(rt->stats().compiles == 1);
  CHECK(rt->stats().cache_hits == 7);
}

TEST_CASE("plan cache: a failed compile is reported to every waiter and not cached") {
  jit::PlanCache cache;
  jit::PlanKey key{42, {{DType::F32, {2}}}, "cpu:0"};
  std::atomic<int> calls{0};
  auto failing = [&]() -> Expected<jit::PlanCache::PlanPtr> {
    calls++;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return Status(StatusCode::kTypeError, "bad shapes");
  };
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto r = cache.get_or_compile(key, failing);
      if (!r && r.status().message() == "bad shapes") errors++;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(errors.load() == 4);
  CHECK(calls.load() >= 1);
  CHECK(cache.size() == 0);
  CHECK(cache.stats().compiles == 0);
  auto plan = std::make_shared<FakePlan>();
  auto r = cache.get_or_compile(
      key, [&]() -> Expected<jit::PlanCache::PlanPtr> { return jit::PlanCache::PlanPtr(plan); });
  REQUIRE(r.has_value());
  CHECK(r->get() == plan.get());
  CHECK(cache.stats().compiles == 1);
  CHECK(cache.size() == 1);
  cache.clear();
  CHECK(cache.size() == 0);
}

TEST_CASE("plan cache: keys differ by fingerprint, each shape's dims and dtype, and device") {
  jit::PlanKey a{1, {{DType::F32, {2, 3}}}, "cpu:0"};
  jit::PlanKey b = a;
  CHECK(a == b);
  CHECK(jit::PlanKeyHash{}(a) == jit::PlanKeyHash{}(b));
  b.fingerprint = 2;
  CHECK_FALSE(a == b);
  b = a;
  b.input_shapes[0].dims = {3, 2};
  CHECK_FALSE(a == b);
  CHECK(jit::PlanKeyHash{}(a) != jit::PlanKeyHash{}(b));
  b = a;
  b.input_shapes[0].dtype = DType::F64;
  CHECK_FALSE(a == b);
  b = a;
  b.device = "opencl:0";
  CHECK_FALSE(a == b);
  CHECK(a.to_string() == "0000000000000001|f32[2, 3]|cpu:0");
}

TEST_CASE("plan cache: beyond capacity the least recently used plan is dropped") {
  jit::PlanCache cache(2);
  auto make = [](int* calls) {
    return [calls]() -> Expected<jit::PlanCache::PlanPtr> {
      ++*calls;
      return jit::PlanCache::PlanPtr(std::make_shared<FakePlan>());
    };
  };
  int calls = 0;
  jit::PlanKey k1{1, {}, "cpu:0"}, k2{2, {}, "cpu:0"}, k3{3, {}, "cpu:0"};
  auto p1 = cache.get_or_compile(k1, make(&calls));
  REQUIRE(cache.get_or_compile(k2, make(&calls)).has_value());
  REQUIRE(cache.get_or_compile(k1, make(&calls)).has_value());  // k1 is now the most recent
  REQUIRE(cache.get_or_compile(k3, make(&calls)).has_value());  // evicts k2
  CHECK(calls == 3);
  CHECK(cache.size() == 2);
  REQUIRE(cache.get_or_compile(k1, make(&calls)).has_value());
  CHECK(calls == 3);
  REQUIRE(cache.get_or_compile(k2, make(&calls)).has_value());  // compiled again
  CHECK(calls == 4);
  CHECK(p1->get() != nullptr);  // a dropped plan stays alive while held
}
