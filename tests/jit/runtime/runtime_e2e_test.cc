// End to end through jit::Runtime on the CPU, checked against the reference interpreter.
#include <doctest/doctest.h>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr const char* kMatmulBiasRelu = R"(
function (A[M, K], B[K, N], Bias[N]) -> (R) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
  R = relu(C + Bias);
}
)";

}  // namespace

TEST_CASE("runtime: matmul + bias + relu matches the interpreter") {
  auto rt = make_runtime();
  auto program = parse_program(kMatmulBiasRelu);
  run_and_check(*rt, program,
                {random_tensor({DType::F32, {3, 5}}, 1), random_tensor({DType::F32, {5, 4}}, 2),
                 random_tensor({DType::F32, {4}}, 3)});
}

TEST_CASE("runtime: large enough work to split across threads gives the same result") {
  auto rt = make_runtime(4);
  CHECK(rt->devices()[0].threads == 4);
  auto program = parse_program(kMatmulBiasRelu);
  run_and_check(*rt, program,
                {random_tensor({DType::F32, {67, 64}}, 4), random_tensor({DType::F32, {64, 33}}, 5),
                 random_tensor({DType::F32, {33}}, 6)});
}

TEST_CASE("runtime: integer elementwise with broadcasting, exact") {
  auto rt = make_runtime();
  auto program = parse_program(R"(
function (X[N, M], Y[M]) -> (Z) {
  Z = X * Y - 3;
}
)");
  run_and_check(*rt, program,
                {random_tensor({DType::I32, {4, 6}}, 7), random_tensor({DType::I32, {6}}, 8)});
}

TEST_CASE("runtime: several outputs, in declaration order, one can be requested by name") {
  auto rt = make_runtime();
  auto program = parse_program(R"(
function (A[N]) -> (S, P) {
  S[] = +(A[i]);
  P = A * 2;
}
)");
  auto a = random_tensor({DType::F32, {10}}, 9);
  run_and_check(*rt, program, {a});
  auto want = reference(program, {a});
  NamedBuffers out = {{"P", nullptr}};
  REQUIRE(jit::run_by_name(*rt, program, 0, {{"A", upload(*rt, a)}}, &out).is_ok());
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == "P");
  check_equal(download(*rt, *out[0].second), want[1]);
}

TEST_CASE("runtime: a given output buffer is written in place") {
  auto rt = make_runtime();
  auto program = parse_program(kMatmulBiasRelu);
  std::vector<HostTensor> in = {random_tensor({DType::F32, {2, 3}}, 10),
                                random_tensor({DType::F32, {3, 2}}, 11),
                                random_tensor({DType::F32, {2}}, 12)};
  auto r = rt->allocate(0, {DType::F32, {2, 2}});
  REQUIRE(r.has_value());
  NamedBuffers out = {{"R", *r}};
  REQUIRE(jit::run_by_name(
              *rt, program, 0,
              {{"Bias", upload(*rt, in[2])}, {"A", upload(*rt, in[0])}, {"B", upload(*rt, in[1])}},
              &out)
              .is_ok());
  CHECK(out[0].second == *r);
  check_equal(download(*rt, **r), reference(program, in)[0]);
}

TEST_CASE("runtime: an output may be written into one of the inputs (in place update)") {
  auto rt = make_runtime();
  auto program = parse_program(R"(
function (A[N, M]) -> (B) {
  T[i, j : N, M] = +(A[i, j - 1]);
  B = A + T;
}
)");
  auto a = random_tensor({DType::F32, {3, 4}}, 13);
  auto want = reference(program, {a});
  auto buf = upload(*rt, a);
  NamedBuffers out = {{"B", buf}};
  REQUIRE(jit::run_by_name(*rt, program, 0, {{"A", buf}}, &out).is_ok());
  check_equal(download(*rt, *buf), want[0]);
}

TEST_CASE("runtime: f64 and a contraction with a constraint") {
  auto rt = make_runtime();
  auto program = parse_program(R"(
function (I[N]) -> (O) {
  O[i : N] = +(I[i + k]), k < 3;
}
)");
  run_and_check(*rt, program, {random_tensor({DType::F64, {9}}, 14)});
}

TEST_CASE("runtime: the same plan runs from many threads at once") {
  auto rt = make_runtime(2);
  auto program = parse_program(kMatmulBiasRelu);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::vector<HostTensor> in = {random_tensor({DType::F32, {8, 8}}, 100 + t),
                                    random_tensor({DType::F32, {8, 8}}, 200 + t),
                                    random_tensor({DType::F32, {8}}, 300 + t)};
      auto want = reference(program, in);
      for (int rep = 0; rep < 10; ++rep) {
        NamedBuffers out;
        auto s = jit::run_by_name(
            *rt, program, 0,
            {{"A", upload(*rt, in[0])}, {"B", upload(*rt, in[1])}, {"Bias", upload(*rt, in[2])}},
            &out);
        if (!s.is_ok()) {
          failures++;
          continue;
        }
        HostTensor got = download(*rt, *out[0].second);
        if (got.bytes != want[0].bytes) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  CHECK(rt->stats().compiles == 1);
}

TEST_CASE("runtime: an output that is an input unchanged, and a scalar input") {
  auto rt = make_runtime();
  auto program = parse_program(R"(
function (A[N], S[]) -> (B, C) {
  B = A;
  C = A * S;
}
)");
  run_and_check(*rt, program,
                {random_tensor({DType::F32, {6}}, 15), random_tensor({DType::F32, {}}, 16)});
}
