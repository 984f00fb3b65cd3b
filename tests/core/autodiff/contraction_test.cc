// Contractions (every aggregation and combination with a gradient), structural ops and
// constants against central differences, at several shapes each.
#include <string>
#include <vector>

#include "fd_check.h"

namespace plaidml::autodiff::test {

TEST_CASE("autodiff: matmul, both operands") {
  const char* tile =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  for (auto [m, k, n] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{2, 3, 4}, {1, 1, 1}, {3, 1, 2}}) {
    check_gradient(tile, "C", {{"A", rand64({m, k}, 1)}, {"B", rand64({k, n}, 2)}}, {"A", "B"});
  }
}

TEST_CASE("autodiff: strided, padded convolution") {
  const char* tile = R"(function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
    O[n, x, co : N, (X - 1) / 2 + 1, CO] = +(I[n, 2 * x + k - 1, ci] * K[k, ci, co]);
  })";
  check_gradient(tile, "O", {{"I", rand64({2, 5, 2}, 3)}, {"K", rand64({3, 2, 3}, 4)}}, {"I", "K"});
  check_gradient(tile, "O", {{"I", rand64({1, 6, 1}, 5)}, {"K", rand64({3, 1, 2}, 6)}}, {"I", "K"});
}

TEST_CASE("autodiff: sum, max and min reductions") {
  const char* sum = "function (X[N, M]) -> (S) { S[i : N] = +(X[i, j]); }";
  const char* mx = "function (X[N, M]) -> (S) { S[i : N] = >(X[i, j]); }";
  const char* mn = "function (X[N, M]) -> (S) { S[j : M] = <(X[i, j]); }";
  const char* all = "function (X[N, M]) -> (S) { S[] = >(X[i, j]); }";
  for (const char* t : {sum, mx, mn, all}) {
    CAPTURE(t);
    check_gradient(t, "S", {{"X", rand64({3, 4}, 7)}}, {"X"});
    check_gradient(t, "S", {{"X", rand64({1, 5}, 8)}}, {"X"});
  }
}

TEST_CASE("autodiff: max pooling, a diagonal, a transpose, a square") {
  const char* pool = R"(function (I[N, X, C]) -> (O) {
    O[n, x, c : N, (X + 1) / 2, C] = >(I[n, 2 * x + i, c]), i < 2;
  })";
  check_gradient(pool, "O", {{"I", rand64({2, 5, 2}, 40)}}, {"I"});
  check_gradient(pool, "O", {{"I", rand64({1, 4, 3}, 41)}}, {"I"});
  check_gradient("function (X[N, N]) -> (T) { T[i : N] = +(X[i, i]); }", "T",
                 {{"X", rand64({3, 3}, 42)}}, {"X"});
  check_gradient("function (X[N, M]) -> (T) { T[j, i : M, N] = =(X[i, j]); }", "T",
                 {{"X", rand64({2, 3}, 43)}}, {"X"});
  check_gradient("function (X[N, M]) -> (T) { T[i : N] = +(X[i, j] * X[i, j]); }", "T",
                 {{"X", rand64({2, 3}, 44)}}, {"X"});
}

TEST_CASE("autodiff: a user constraint (cumulative sum)") {
  const char* tile = "function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }";
  check_gradient(tile, "S", {{"X", rand64({5}, 9)}}, {"X"});
  check_gradient(tile, "S", {{"X", rand64({1}, 10)}}, {"X"});
}

TEST_CASE("autodiff: assign with a tensor default (concatenate-like)") {
  const char* tile = R"(function (A[N], B[M], D[P]) -> (E) {
    C[i : N + M] = =(A[i]) default D;
    E[i : N + M] = =(B[i - N]) default C;
  })";
  // E is A then B; C is A over D's tail, and D's tail reaches E only where B does not write.
  const char* two = R"(function (A[N], D[P]) -> (C) {
    C[i : P] = =(A[i - 1]) default D;
  })";
  check_gradient(two, "C", {{"A", rand64({2}, 11)}, {"D", rand64({4}, 12)}}, {"A", "D"});
  check_gradient(two, "C", {{"A", rand64({3}, 11)}, {"D", rand64({4}, 12)}}, {"A", "D"});
  check_gradient(tile, "E",
                 {{"A", rand64({2}, 13)}, {"B", rand64({3}, 14)}, {"D", rand64({5}, 15)}},
                 {"A", "B", "D"});
}

TEST_CASE("autodiff: + with a broadcast default, and max with a default") {
  const char* sum = "function (X[N, M], D[M]) -> (S) { S[i, j : N, M] = +(X[i, j]) default D; }";
  check_gradient(sum, "S", {{"X", rand64({2, 3}, 16)}, {"D", rand64({3}, 17)}}, {"X", "D"});
  const char* mx = "function (X[N, M], D[N]) -> (S) { S[i : N] = >(X[i, j]) default D; }";
  check_gradient(mx, "S", {{"X", rand64({4, 3}, 18)}, {"D", rand64({4}, 19)}}, {"X", "D"});
}

TEST_CASE("autodiff: the + combination and the cond form") {
  const char* add = "function (A[N], B[M]) -> (O) { O[i, j : N, M] = +(A[i] + B[j]); }";
  check_gradient(add, "O", {{"A", rand64({3}, 20)}, {"B", rand64({2}, 21)}}, {"A", "B"});
  // The + combination over a smaller index space than either input: B's range still bounds i.
  const char* part = "function (A[N], B[M]) -> (O) { O[] = +(A[i] + B[i]); }";
  check_gradient(part, "O", {{"A", rand64({5}, 22)}, {"B", rand64({3}, 23)}}, {"A", "B"});
  const char* cond = R"(function (X[N, M], V[M]) -> (O) {
    Mx[i : N] = >(X[i, j]);
    O[i : N] = +(X[i, j] == Mx[i] ? V[j]);
  })";
  check_gradient(cond, "O", {{"X", rand64({3, 4}, 24)}, {"V", rand64({4}, 25)}}, {"X", "V"});
}

TEST_CASE("autodiff: a rational index (transposed-convolution style)") {
  const char* tile =
      "function (I[N], K[M]) -> (O) { O[i : 2 * N + 1] = +(I[(i - j + 1) / 2] * K[j]); }";
  check_gradient(tile, "O", {{"I", rand64({3}, 26)}, {"K", rand64({3}, 27)}}, {"I", "K"});
}

TEST_CASE("autodiff: reshape, gather and scatter") {
  const char* rs = "function (X[N, M]) -> (F) { F = exp(reshape(X, N * M)); }";
  check_gradient(rs, "F", {{"X", rand64({2, 3}, 28)}}, {"X"});
  const char* ga = "function (V[R, C], I[K]) -> (F) { F = gather(V, I) * gather(V, I); }";
  check_gradient(ga, "F", {{"V", rand64({4, 3}, 29)}, {"I", i32({5}, {0, 2, 2, 3, 7})}}, {"V"});
  const char* sc = "function (E[K, C], I[K], V[R, C]) -> (F) { F = exp(scatter(E, I, V)); }";
  check_gradient(sc, "F",
                 {{"E", rand64({3, 2}, 30)}, {"I", i32({3}, {1, 1, 0})}, {"V", rand64({4, 2}, 31)}},
                 {"E", "V"});
}

TEST_CASE("autodiff: an input the loss does not use gets zeros of its shape") {
  const char* tile = "function (X[N], Y[M, P]) -> (F) { F = X * 2.0; }";
  check_gradient(tile, "F", {{"X", rand64({3}, 32)}, {"Y", rand64({2, 2}, 33)}}, {"X", "Y"});
}

TEST_CASE("autodiff: the loss itself, a sum of two inputs, and one adjoint for two inputs") {
  check_gradient("function (X[]) -> (F) { F = X; }", "F", {{"X", rand64({}, 34)}}, {"X"});
  check_gradient("function (A[N], B[N]) -> (F) { F = A + B; }", "F",
                 {{"A", rand64({3}, 35)}, {"B", rand64({3}, 36)}}, {"A", "B"});
}

}  // namespace plaidml::autodiff::test
