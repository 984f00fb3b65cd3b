// reshape, index, shape, gather, scatter and prng_* against hand-computed values.
#include <cmath>
#include <cstdint>

#include "eval_util.h"

namespace plaidml::eval::test {
namespace {

TEST_CASE("reshape keeps row-major order") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor r = run1("function (X[M, N]) -> (R) { R = reshape(X, N, M); }", {x});
  check_tensor(r, f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  HostTensor flat = run1("function (X[M, N]) -> (R) { R = reshape(X, M * N); }", {x});
  check_tensor(flat, f32({6}, {1, 2, 3, 4, 5, 6}));
}

TEST_CASE("index gives each element's coordinate along an axis") {
  HostTensor x = f32({2, 3}, {0, 0, 0, 0, 0, 0});
  HostTensor i0 = run1("function (X[M, N]) -> (R) { R = index(X, 0); }", {x});
  CHECK(i0.shape == Shape(DType::I32, {2, 3}));
  CHECK(to_doubles(i0) == std::vector<double>{0, 0, 0, 1, 1, 1});
  HostTensor i1 = run1("function (X[M, N]) -> (R) { R = index(X, 1); }", {x});
  CHECK(to_doubles(i1) == std::vector<double>{0, 1, 2, 0, 1, 2});
}

TEST_CASE("shape gives the dims as i32") {
  HostTensor x(Shape(DType::U8, {4, 1, 7}));
  HostTensor s = run1("function (X) -> (R) { R = shape(X); }", {x});
  CHECK(s.shape == Shape(DType::I32, {3}));
  CHECK(to_doubles(s) == std::vector<double>{4, 1, 7});
}

TEST_CASE("gather rows, clamping indices into range") {
  HostTensor v = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor i = make_tensor(DType::I32, {2, 2}, {2, 0, -5, 9});
  HostTensor g = run1("function (V[N, C], I[A, B]) -> (R) { R = gather(V, I); }", {v, i});
  // Rows 2, 0, clamp(-5) = 0, clamp(9) = 2.
  check_tensor(g, f32({2, 2, 2}, {5, 6, 1, 2, 1, 2, 5, 6}));
}

TEST_CASE("scatter adds rows at indices and duplicates accumulate") {
  HostTensor e = f32({3, 2}, {1, 2, 10, 20, 100, 200});
  HostTensor i = make_tensor(DType::I64, {3}, {2, 0, 2});
  HostTensor like = f32({4, 2}, {9, 9, 9, 9, 9, 9, 9, 9});  // gives the shape only
  HostTensor s =
      run1("function (E[A, C], I[A], V[N, C]) -> (R) { R = scatter(E, I, V); }", {e, i, like});
  check_tensor(s, f32({4, 2}, {10, 20, 0, 0, 101, 202, 0, 0}));
}

// One taus88 generator step, written out from the published recurrence (L'Ecuyer 1996).
void taus88_step(uint32_t& s1, uint32_t& s2, uint32_t& s3) {
  s1 = ((s1 & 0xFFFFFFFEu) << 12) ^ (((s1 << 13) ^ s1) >> 19);
  s2 = ((s2 & 0xFFFFFFF8u) << 4) ^ (((s2 << 2) ^ s2) >> 25);
  s3 = ((s3 & 0xFFFFFFF0u) << 17) ^ (((s3 << 3) ^ s3) >> 11);
}

TEST_CASE("prng: taus88 draws, values below 1 and the next state") {
  const int64_t g = 2048;
  std::vector<double> seed(3 * g);
  for (int64_t k = 0; k < 3 * g; ++k) seed[k] = 1000 + 7 * k;  // every state word > 128
  HostTensor state = make_tensor(DType::U32, {3, g}, seed);
  auto out =
      run("function (S[R, C]) -> (P, V, T) {\n"
          "  P = prng_step(S, 2, 2049);\n"
          "  V = prng_value(P);\n"
          "  T = prng_state(P);\n"
          "}",
          {state});
  CHECK(out[0].shape == Shape(DType::U32, {2, 2049}));
  CHECK(out[1].shape == Shape(DType::F32, {2, 2049}));
  CHECK(out[2].shape == Shape(DType::U32, {3, g}));
  auto draws = to_doubles(out[0]), values = to_doubles(out[1]), next = to_doubles(out[2]);
  // 4098 values: generators 0 and 1 step three times (positions g, g+2048, g+4096), the rest
  // twice.
  for (int64_t gen : {int64_t{0}, int64_t{1}, int64_t{2}, g - 1}) {
    CAPTURE(gen);
    uint32_t s1 = static_cast<uint32_t>(seed[gen]), s2 = static_cast<uint32_t>(seed[g + gen]),
             s3 = static_cast<uint32_t>(seed[2 * g + gen]);
    for (int64_t pos = gen; pos < 2 * 2049; pos += g) {
      taus88_step(s1, s2, s3);
      uint32_t draw = s1 ^ s2 ^ s3;
      CHECK(draws[pos] == draw);
      CHECK(values[pos] == std::ldexp(static_cast<double>(draw >> 8), -24));
    }
    CHECK(next[gen] == s1);
    CHECK(next[g + gen] == s2);
    CHECK(next[2 * g + gen] == s3);
  }
  for (double v : values) {
    CHECK(v >= 0.0);
    CHECK(v < 1.0);
  }
}

}  // namespace
}  // namespace plaidml::eval::test
