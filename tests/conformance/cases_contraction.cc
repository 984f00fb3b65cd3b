// Contractions (docs/tile.md section 2): matmul shapes around the vector width (16 f32 lanes) and
// typical GPU tiles (64), batched matmul, every aggregation and combination, constraints,
// cumulative sums, rational indices, `default` and assign contractions.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

// (M, K, N) triples: 1, primes, t-1/t/t+1/2t around 16 and 64, degenerate K and N.
std::vector<ShapeSet> matmul_shapes() {
  const std::vector<Dims> mkn = {{1, 1, 1},    {7, 13, 31},  {15, 16, 17}, {16, 16, 16},
                                 {17, 17, 17}, {32, 31, 32}, {63, 65, 64}, {65, 64, 33},
                                 {1, 128, 5},  {128, 1, 3},  {2, 7, 129}};
  std::vector<ShapeSet> out;
  for (const Dims& d : mkn) out.push_back({{d[0], d[1]}, {d[1], d[2]}});
  return out;
}

std::vector<Case> matmul_family() {
  std::vector<Case> cs;
  cs.push_back({"matmul", R"(
function (A[M, K], B[K, N]) -> (C) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
})",
                matmul_shapes()});
  cs.push_back(
      {"matmul_transposed_a",
       R"(
function (A[K, M], B[K, N]) -> (C) {
  C[i, j : M, N] = +(A[k, i] * B[k, j]);
})",
       {{{13, 7}, {13, 31}}, {{16, 17}, {16, 15}}, {{64, 65}, {64, 16}}, {{1, 1}, {1, 1}}}});
  cs.push_back(
      {"matmul_transposed_b",
       R"(
function (A[M, K], B[N, K]) -> (C) {
  C[i, j : M, N] = +(A[i, k] * B[j, k]);
})",
       {{{7, 13}, {31, 13}}, {{17, 16}, {15, 16}}, {{65, 64}, {16, 64}}, {{1, 1}, {1, 1}}}});
  cs.push_back({"matmul_bias_relu",
                R"(
function (A[M, K], B[K, N], Bias[N]) -> (R) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
  R = relu(C + Bias);
})",
                {{{7, 13}, {13, 31}, {31}},
                 {{16, 17}, {17, 16}, {16}},
                 {{65, 33}, {33, 64}, {64}},
                 {{3, 5}, {5, 1}, {1}}}});
  cs.push_back({"batched_matmul",
                R"(
function (A[B, M, K], X[B, K, N]) -> (C) {
  C[b, i, j : B, M, N] = +(A[b, i, k] * X[b, k, j]);
})",
                {{{1, 1, 1}, {1, 1, 1}},
                 {{3, 7, 13}, {3, 13, 5}},
                 {{2, 15, 16}, {2, 16, 17}},
                 {{4, 17, 33}, {4, 33, 16}},
                 {{2, 63, 8}, {2, 8, 65}}}});
  cs.push_back(
      {"matvec",
       R"(
function (A[M, K], X[K]) -> (Y) {
  Y[i : M] = +(A[i, k] * X[k]);
})",
       {{{1, 1}, {1}}, {{7, 13}, {13}}, {{16, 17}, {17}}, {{65, 64}, {64}}, {{3, 129}, {129}}}});
  cs.push_back(
      {"dot",
       R"(
function (A[N], B[N]) -> (S) {
  S[] = +(A[i] * B[i]);
})",
       {{{1}, {1}}, {{7}, {7}}, {{15}, {15}}, {{16}, {16}}, {{17}, {17}}, {{257}, {257}}}});
  // Four tiled kernels of different shapes in one program. Their SPIR-V module once declared
  // each kernel's Workgroup tiles apart (about 14 KB each), and a SPIR-V 1.3 entry point may be
  // charged for all of the module's: the validation layer rejects the module on lavapipe
  // (32 KB), and NVIDIA's driver lost the device on ResNet-50 the same way (issue 36).
  cs.push_back({"matmul_chain_distinct_tiles",
                R"(
function (A[M, K], B[K, N], C[N, P], D[P, Q], E[Q, R]) -> (Y) {
  X1[i, j : M, N] = +(A[i, k] * B[k, j]);
  X2[i, j : M, P] = +(X1[i, k] * C[k, j]);
  X3[i, j : M, Q] = +(X2[i, k] * D[k, j]);
  Y[i, j : M, R] = +(X3[i, k] * E[k, j]);
})",
                {{{128, 96}, {96, 112}, {112, 80}, {80, 72}, {72, 64}}},
                {DType::F32},
                {},
                // Four sums of ~100 terms in a row: outputs near 100, the order of summation
                // moves the last digits of the small ones.
                testing::Tolerance{1e-4, 1e-3}});
  cs.push_back({"mlp_two_layers",
                R"(
function (X[B, I], W1[I, H], B1[H], W2[H, O]) -> (Y) {
  H1[b, h : B, H] = +(X[b, i] * W1[i, h]);
  A1 = tanh(H1 + B1);
  Y[b, o : B, O] = +(A1[b, h] * W2[h, o]);
})",
                {{{2, 13}, {13, 17}, {17}, {17, 3}}, {{16, 16}, {16, 64}, {64}, {64, 16}}},
                {DType::F32},
                {},
                // The CPU's vector code computes a * b + c as one FMA (loop_ir.h): a sum of 64
                // products of tanh values, with cancellation, then differs from the separately
                // rounded interpreter by a few 1e-6 absolute (about K * eps * sum |a * b|).
                testing::Tolerance{1e-4, 1e-5}});
  return cs;
}

std::vector<Case> aggregation_family() {
  const std::vector<ShapeSet> rows = {{{1, 1}},  {{7, 13}},  {{16, 15}},
                                      {{3, 17}}, {{31, 64}}, {{2, 65}}};
  std::vector<Case> cs;
  cs.push_back({"sum_rows", "function (X[M, N]) -> (O) { O[i : M] = +(X[i, j]); }", rows});
  cs.push_back({"sum_cols", "function (X[M, N]) -> (O) { O[j : N] = +(X[i, j]); }", rows});
  cs.push_back({"sum_all", "function (X[M, N]) -> (O) { O[] = +(X[i, j]); }", rows});
  cs.push_back({"max_rows", "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }", rows});
  cs.push_back({"min_cols", "function (X[M, N]) -> (O) { O[j : N] = <(X[i, j]); }", rows});
  Case prod{"prod_rows", "function (X[M, N]) -> (O) { O[i : M] = *(X[i, j]); }", rows};
  prod.ranges = {range(0.8, 1.25)};
  cs.push_back(prod);
  cs.push_back({"outer_sum",
                "function (A[N], B[M]) -> (O) { O[i, j : N, M] = +(A[i] + B[j]); }",
                {{{1}, {1}}, {{7}, {13}}, {{16}, {17}}, {{65}, {3}}}});
  cs.push_back({"outer_product",
                "function (A[N], B[M]) -> (O) { O[i, j : N, M] = +(A[i] * B[j]); }",
                {{{1}, {1}}, {{15}, {16}}, {{17}, {64}}}});
  Case eq{"any_equal",
          "function (A[N, M], B[N, M]) -> (O) { O[i : N] = >(A[i, j] == B[i, j]); }",
          {{{1, 1}, {1, 1}}, {{7, 3}, {7, 3}}, {{17, 16}, {17, 16}}}};
  eq.dtypes = {DType::I32};
  eq.ranges = {int_range(0, 3)};
  cs.push_back(eq);
  Case argmax{"argmax_ternary",
              R"(
function (X[R, C], Idx[C]) -> (M, O) {
  M[i : R] = >(X[i, j]);
  O[i : R] = +(X[i, j] == M[i] ? Idx[j]);
})",
              {{{1, 1}, {1}}, {{7, 13}, {13}}, {{16, 17}, {17}}, {{5, 64}, {64}}}};
  argmax.dtypes = {DType::I32};
  argmax.ranges = {int_range(-3, 3), int_range(0, 100)};
  cs.push_back(argmax);
  cs.push_back({"max_no_valid_point",
                "function (X[N]) -> (O) { O[i : N] = >(X[i + N]); }",
                {{{1}}, {{16}}}});
  return cs;
}

std::vector<Case> constraint_family() {
  const std::vector<ShapeSet> vec = {{{1}}, {{7}}, {{15}}, {{16}}, {{17}}, {{64}}, {{65}}};
  std::vector<Case> cs;
  cs.push_back({"cumsum", "function (X[N]) -> (S) { S[i : N] = +(X[k]), i - k < N; }", vec});
  Case cumprod{"cumprod", "function (X[N]) -> (S) { S[i : N] = *(X[k]), i - k < N; }", vec};
  cumprod.ranges = {range(0.9, 1.1)};
  cs.push_back(cumprod);
  cs.push_back({"cummax_rows",
                "function (X[M, N]) -> (S) { S[r, i : M, N] = >(X[r, k]), i - k < N; }",
                {{{1, 1}}, {{3, 17}}, {{2, 64}}}});
  cs.push_back({"window_sum",
                "function (X[N]) -> (O) { O[i : N - 2] = +(X[i + j]), j < 3; }",
                {{{3}}, {{7}}, {{17}}, {{66}}}});
  cs.push_back({"band_sum",
                "function (X[N, N]) -> (O) { O[i : N] = +(X[i, j]), i - j + 2 < 5; }",
                {{{1, 1}}, {{7, 7}}, {{16, 16}}, {{17, 17}}}});
  cs.push_back({"upper_triangle_sum",
                "function (X[N, M]) -> (O) { O[i : N] = +(X[i, j]), j - i < M; }",
                {{{1, 1}}, {{7, 13}}, {{17, 16}}, {{31, 65}}}});
  cs.push_back({"two_constraints",
                "function (X[N, M]) -> (O) { O[i : N] = +(X[i, j]), j - i < 4, i + j - 3 < M; }",
                {{{7, 13}}, {{16, 16}}, {{33, 17}}}});
  return cs;
}

std::vector<Case> rational_default_family() {
  const std::vector<ShapeSet> vec = {{{1}}, {{7}}, {{16}}, {{17}}, {{31}}};
  std::vector<Case> cs;
  cs.push_back({"rational_tile_md_example",
                "function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1) / 2] * K[j]); }",
                {{{3}, {3}}, {{1}, {1}}, {{7}, {2}}}});
  cs.push_back(
      {"rational_upsample", "function (X[N]) -> (O) { O[i : 2 * N] = +(X[i / 2]); }", vec});
  cs.push_back({"rational_downsample_sum",
                "function (X[N]) -> (O) { O[i / 2 : (N + 1) / 2] = +(X[i]); }", vec});
  cs.push_back(
      {"rational_third", "function (X[N]) -> (O) { O[i : N] = +(X[(2 * i + 1) / 3]); }", vec});
  cs.push_back({"transposed_conv1d_stride2",
                R"(
function (I[X], K[KX]) -> (O) {
  O[x : 2 * X + KX - 2] = +(I[(x - k) / 2] * K[k]);
})",
                {{{1}, {1}}, {{7}, {3}}, {{16}, {4}}, {{17}, {5}}, {{33}, {2}}}});
  cs.push_back({"default_tensor",
                "function (X[N], D[M]) -> (O) { O[i : M] = +(X[i]) default D; }",
                {{{1}, {1}}, {{7}, {13}}, {{17}, {16}}, {{16}, {65}}}});
  cs.push_back(
      {"default_literal", "function (X[N]) -> (O) { O[i : N + 3] = >(X[i]) default 0.25; }", vec});
  cs.push_back({"assign_shift_default",
                "function (X[N], D[M]) -> (O) { O[i + 1 : M] = =(X[i]) default D; }",
                {{{1}, {3}}, {{7}, {5}}, {{16}, {17}}, {{17}, {16}}}});
  cs.push_back({"assign_transpose",
                "function (X[M, N]) -> (O) { O[j, i : N, M] = =(X[i, j]); }",
                {{{1, 1}}, {{7, 13}}, {{16, 17}}, {{65, 15}}}});
  cs.push_back({"assign_flip", "function (X[N]) -> (O) { O[N - 1 - i : N] = =(X[i]); }", vec});
  cs.push_back({"assign_diagonal", "function (X[N]) -> (O) { O[i, i : N, N] = =(X[i]); }", vec});
  return cs;
}

}  // namespace

Family contraction_cases() {
  Family f{"contractions", {}};
  for (auto part :
       {matmul_family(), aggregation_family(), constraint_family(), rational_default_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
