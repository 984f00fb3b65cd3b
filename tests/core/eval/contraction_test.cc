// Contractions against hand-computed values or obviously-correct loops written here.
#include <chrono>
#include <cmath>
#include <limits>

#include "eval_util.h"

namespace plaidml::eval::test {
namespace {

using plaidml::testing::random_tensor;

TEST_CASE("matmul 2x3 * 3x2 by hand") {
  HostTensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  HostTensor c =
      run1("function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }", {a, b});
  // [1*7+2*9+3*11, 1*8+2*10+3*12; 4*7+5*9+6*11, 4*8+5*10+6*12]
  check_tensor(c, f32({2, 2}, {58, 64, 139, 154}));
}

TEST_CASE("matmul 64x64x64 matches a loop and takes milliseconds") {
  HostTensor a = random_tensor(Shape(DType::F32, {64, 64}), 1);
  HostTensor b = random_tensor(Shape(DType::F32, {64, 64}), 2);
  auto start = std::chrono::steady_clock::now();
  HostTensor c =
      run1("function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }", {a, b});
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CHECK(ms < 500);
  auto av = to_doubles(a), bv = to_doubles(b);
  std::vector<double> want(64 * 64, 0.0);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      for (int k = 0; k < 64; ++k) want[i * 64 + j] += av[i * 64 + k] * bv[k * 64 + j];
  check_tensor(c, f32({64, 64}, want));
}

TEST_CASE("conv 2d with padding 1 and stride 2 matches a loop") {
  const int n = 2, x = 5, y = 4, ci = 3, kx = 3, ky = 3, co = 2;
  HostTensor in = random_tensor(Shape(DType::F32, {n, x, y, ci}), 3);
  HostTensor k = random_tensor(Shape(DType::F32, {kx, ky, ci, co}), 4);
  HostTensor o = run1(
      "function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {\n"
      "  O[n, x, y, co : N, (X + 1) / 2, (Y + 1) / 2, CO] =\n"
      "      +(I[n, 2 * x + i - 1, 2 * y + j - 1, ci] * K[i, j, ci, co]);\n"
      "}",
      {in, k});
  const int ox = (x + 1) / 2, oy = (y + 1) / 2;
  auto iv = to_doubles(in), kv = to_doubles(k);
  std::vector<double> want(n * ox * oy * co, 0.0);
  for (int b = 0; b < n; ++b)
    for (int p = 0; p < ox; ++p)
      for (int q = 0; q < oy; ++q)
        for (int c = 0; c < co; ++c)
          for (int i = 0; i < kx; ++i)
            for (int j = 0; j < ky; ++j)
              for (int d = 0; d < ci; ++d) {
                int sx = 2 * p + i - 1, sy = 2 * q + j - 1;
                if (sx < 0 || sx >= x || sy < 0 || sy >= y) continue;  // zero padding
                want[((b * ox + p) * oy + q) * co + c] +=
                    iv[((b * x + sx) * y + sy) * ci + d] * kv[((i * ky + j) * ci + d) * co + c];
              }
  check_tensor(o, f32({n, ox, oy, co}, want));
}

TEST_CASE("valid conv 1d by hand") {
  HostTensor o = run1("function (I[X], K[KX]) -> (O) { O[x : X - KX + 1] = +(I[x + i] * K[i]); }",
                      {f32({5}, {1, 2, 3, 4, 5}), f32({2}, {1, -1})});
  check_tensor(o, f32({4}, {-1, -1, -1, -1}));
}

TEST_CASE("max pool 2x2 stride 2 with a ragged edge") {
  // 3x3 input, output (3+1)/2 = 2 per axis: the last row/column pools a single line.
  HostTensor in = f32({1, 3, 3, 1}, {1, 5, 2, 7, 3, 9, 4, 8, 6});
  HostTensor o = run1(
      "function (I[N, X, Y, C]) -> (O) {\n"
      "  O[n, x, y, c : N, (X + 1) / 2, (Y + 1) / 2, C] = >(I[n, 2 * x + i, 2 * y + j, c]),\n"
      "      i < 2, j < 2;\n"
      "}",
      {in});
  check_tensor(o, f32({1, 2, 2, 1}, {7, 9, 8, 6}));
}

TEST_CASE("cumulative sum with a user constraint") {
  HostTensor s = run1("function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }",
                      {f32({5}, {1, 2, 3, 4, 5})});
  check_tensor(s, f32({5}, {1, 3, 6, 10, 15}));
}

TEST_CASE("rational index: only integer points count") {
  HostTensor o = run1("function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1) / 2] * K[j]); }",
                      {f32({3}, {1, 2, 3}), f32({3}, {1, 2, 3})});
  check_tensor(o, f32({5}, {2, 5, 4, 9, 6}));
}

TEST_CASE("rational and negative output indices") {
  HostTensor x = f32({6}, {1, 2, 3, 4, 5, 6});
  // O[i / 2] receives only even i: O = [X0, X2, X4].
  check_tensor(run1("function (X[N]) -> (O) { O[i / 2 : 3] = +(X[i]); }", {x}),
               f32({3}, {1, 3, 5}));
  check_tensor(run1("function (X[N]) -> (O) { O[N - 1 - i : N] = =(X[i]); }", {x}),
               f32({6}, {6, 5, 4, 3, 2, 1}));
  // Upsampling by 2 through a rational input index: O[i] = X[i / 2] on even i only.
  check_tensor(run1("function (X[N]) -> (O) { O[i : 2 * N] = +(X[i / 2]); }", {x}),
               f32({12}, {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}));
}

TEST_CASE("a literal default") {
  HostTensor x = f32({2}, {1, 2});
  check_tensor(run1("function (X[N]) -> (O) { O[i : 3] = +(X[i]) default 5; }", {x}),
               f32({3}, {6, 7, 5}));
}

TEST_CASE("untouched outputs hold the aggregation identity") {
  // Only O[0] and O[1] receive points (k in [0, 2)); O[2], O[3] keep the identity.
  const char* text = "function (X[N]) -> (O) { O[i : 4] = AGG(X[i]); }";
  HostTensor x = f32({2}, {3, -2});
  auto with = [&](const std::string& agg) {
    std::string t = text;
    t.replace(t.find("AGG"), 3, agg);
    return to_doubles(run1(t, {x}));
  };
  double inf = std::numeric_limits<double>::infinity();
  CHECK(with("+") == std::vector<double>{3, -2, 0, 0});
  CHECK(with("*") == std::vector<double>{3, -2, 1, 1});
  CHECK(with(">") == std::vector<double>{3, -2, -inf, -inf});
  CHECK(with("<") == std::vector<double>{3, -2, inf, inf});
  CHECK(with("=") == std::vector<double>{3, -2, 0, 0});
}

TEST_CASE("integer identities: max of nothing is the dtype's lowest value") {
  HostTensor x = make_tensor(DType::I16, {1}, {5});
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[i : 3] = >(X[i]); }", {x})) ==
        std::vector<double>{5, -32768, -32768});
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[i : 3] = <(X[i]); }", {x})) ==
        std::vector<double>{5, 32767, 32767});
  HostTensor u = make_tensor(DType::U8, {1}, {5});
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[i : 2] = <(X[i]); }", {u})) ==
        std::vector<double>{5, 255});
}

TEST_CASE("sum, product, max, min and assign reductions") {
  HostTensor x = f32({2, 3}, {1, -2, 3, 4, 5, -6});
  auto reduce = [&](const std::string& agg) {
    return to_doubles(run1("function (X[M, N]) -> (O) { O[i : M] = " + agg + "(X[i, j]); }", {x}));
  };
  CHECK(reduce("+") == std::vector<double>{2, 3});
  CHECK(reduce("*") == std::vector<double>{-6, -120});
  CHECK(reduce(">") == std::vector<double>{3, 5});
  CHECK(reduce("<") == std::vector<double>{-2, -6});
  HostTensor t = run1("function (X[M, N]) -> (O) { O[j, i : N, M] = =(X[i, j]); }", {x});
  check_tensor(t, f32({3, 2}, {1, 4, -2, 5, 3, -6}));
  HostTensor all = run1("function (X[M, N]) -> (O) { O[] = +(X[i, j]); }", {x});
  check_tensor(all, f32({}, {5}));
}

TEST_CASE("combination ops: add, equal, and the ternary form") {
  HostTensor a = f32({3}, {1, 2, 3});
  HostTensor b = f32({3}, {10, 2, 30});
  HostTensor sum =
      run1("function (A[N], B[M]) -> (O) { O[i, j : N, M] = +(A[i] + B[j]); }", {a, b});
  check_tensor(sum, f32({3, 3}, {11, 3, 31, 12, 4, 32, 13, 5, 33}));
  HostTensor eq = run1("function (A[N], B[N]) -> (O) { O[i : N] = +(A[i] == B[i]); }", {a, b});
  CHECK(eq.shape.dtype == DType::Bool);
  CHECK(to_doubles(eq) == std::vector<double>{0, 1, 0});
  // argmax: M[i] = max of row i; O[i] = the index of that max (ternary form).
  HostTensor x = f32({2, 3}, {1, 7, 3, 9, 2, 4});
  HostTensor idx = make_tensor(DType::I32, {3}, {0, 1, 2});
  auto out =
      run("function (X[R, C], Idx[C]) -> (M, O) {\n"
          "  M[i : R] = >(X[i, j]);\n"
          "  O[i : R] = +(X[i, j] == M[i] ? Idx[j]);\n"
          "}",
          {x, idx});
  check_tensor(out[0], f32({2}, {7, 9}));
  CHECK(to_doubles(out[1]) == std::vector<double>{1, 0});
  // C keeps its own dtype: large i64 values are not squeezed through A and B's f32.
  HostTensor big = make_tensor(DType::I64, {3}, {0, 1099511627777.0, 2});
  HostTensor o = run1(
      "function (X[R, C], Idx[C]) -> (O) { O[i : R] = +(X[i, j] == X[i, 1] ? Idx[j]); }", {x, big});
  CHECK(o.shape.dtype == DType::I64);
  CHECK(to_doubles(o) == std::vector<double>{1099511627777.0, 1099511627777.0});
}

TEST_CASE("default: the output starts from a tensor, then aggregates") {
  HostTensor x = f32({3}, {1, 2, 3});
  HostTensor d = f32({4}, {10, 20, 30, 40});
  HostTensor o = run1("function (X[N], D[M]) -> (O) { O[i : M] = +(X[i]) default D; }", {x, d});
  check_tensor(o, f32({4}, {11, 22, 33, 40}));
  // `=` overwrites only the elements it touches.
  HostTensor a = run1("function (X[N], D[M]) -> (O) { O[i + 1 : M] = =(X[i]) default D; }", {x, d});
  check_tensor(a, f32({4}, {10, 1, 2, 3}));
}

TEST_CASE("i8 sums wrap in the output dtype") {
  HostTensor x = make_tensor(DType::I8, {3}, {100, 100, 60});
  HostTensor o = run1("function (X[N]) -> (O) { O[] = +(X[i]); }", {x});
  CHECK(o.shape.dtype == DType::I8);
  CHECK(to_doubles(o) == std::vector<double>{4});  // 260 mod 256
  HostTensor u = make_tensor(DType::U8, {2}, {200, 100});
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[] = +(X[i]); }", {u})) ==
        std::vector<double>{44});
  HostTensor p = make_tensor(DType::I8, {2}, {16, 16});  // 256 -> 0
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[] = *(X[i]); }", {p})) ==
        std::vector<double>{0});
}

TEST_CASE("f16 accumulates unrounded and rounds once at the end") {
  // 2048 + 1 + 1 + 1 + 1 in f16 stepwise stays 2048 (ulp is 2 there, ties to even); a wider
  // accumulator gives 2052, exactly representable.
  HostTensor x = make_tensor(DType::F16, {5}, {2048, 1, 1, 1, 1});
  HostTensor o = run1("function (X[N]) -> (O) { O[] = +(X[i]); }", {x});
  CHECK(o.shape.dtype == DType::F16);
  CHECK(to_doubles(o) == std::vector<double>{2052});
  // The end result is rounded to f16: 2048 + 1 = 2049 -> 2048 (tie to even).
  HostTensor y = make_tensor(DType::F16, {2}, {2048, 1});
  CHECK(to_doubles(run1("function (X[N]) -> (O) { O[] = +(X[i]); }", {y})) ==
        std::vector<double>{2048});
}

TEST_CASE("bool contractions") {
  HostTensor x = make_tensor(DType::Bool, {2, 2}, {0, 1, 0, 0});
  HostTensor o = run1("function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }", {x});
  CHECK(o.shape.dtype == DType::Bool);
  CHECK(to_doubles(o) == std::vector<double>{1, 0});
}

TEST_CASE("a contraction with no valid point gives the identity or the default everywhere") {
  // i - k < 0 never holds with 0 <= ... so every point is rejected by the constraint; bind may
  // report an infeasible constraint instead, which is also acceptable docs/tile.md behaviour.
  auto out = try_run("function (X[N]) -> (O) { O[i : N] = >(X[i + 3]); }", {f32({2}, {1, 2})});
  if (out.has_value()) {
    double inf = std::numeric_limits<double>::infinity();
    CHECK(to_doubles(out->at(0)) == std::vector<double>{-inf, -inf});
  } else {
    MESSAGE("bind rejected the empty contraction: " << out.status().message());
  }
}

}  // namespace
}  // namespace plaidml::eval::test
