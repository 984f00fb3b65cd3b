// Pooling and composite reductions: max/min/average pools with stride and padding, global
// pooling, softmax, normalization statistics. These chain contractions with elementwise code,
// which is where fusion and broadcasting of reduced dims get exercised.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

// I[N, X, Y, C]: odd and even spatial sizes, channel counts around the vector width.
const std::vector<ShapeSet>& pool_shapes() {
  static const std::vector<ShapeSet> sets = {{{1, 1, 1, 1}},  {{1, 7, 5, 3}},  {{2, 8, 8, 16}},
                                             {{1, 9, 4, 17}}, {{1, 4, 6, 64}}, {{1, 13, 13, 1}}};
  return sets;
}

std::vector<Case> pool_family() {
  std::vector<Case> cs;
  cs.push_back({"max_pool_2x2_stride2", R"(
function (I[N, X, Y, C]) -> (O) {
  O[n, x, y, c : N, (X + 1) / 2, (Y + 1) / 2, C] = >(I[n, 2 * x + i, 2 * y + j, c]), i < 2, j < 2;
})",
                pool_shapes()});
  cs.push_back({"max_pool_3x3_stride2_pad1", R"(
function (I[N, X, Y, C]) -> (O) {
  O[n, x, y, c : N, (X + 1) / 2, (Y + 1) / 2, C] =
      >(I[n, 2 * x + i - 1, 2 * y + j - 1, c]), i < 3, j < 3;
})",
                pool_shapes()});
  cs.push_back({"min_pool_3x3_same", R"(
function (I[N, X, Y, C]) -> (O) {
  O[n, x, y, c : N, X, Y, C] = <(I[n, x + i - 1, y + j - 1, c]), i < 3, j < 3;
})",
                pool_shapes()});
  // Average with padding excluded: divide by the number of points actually counted.
  cs.push_back({"avg_pool_3x3_same_exclusive",
                R"(
function (I[N, X, Y, C], One[N, X, Y, C]) -> (O) {
  S[n, x, y, c : N, X, Y, C] = +(I[n, x + i - 1, y + j - 1, c]), i < 3, j < 3;
  K[n, x, y, c : N, X, Y, C] = +(One[n, x + i - 1, y + j - 1, c]), i < 3, j < 3;
  O = S / K;
})",
                {{{1, 1, 1, 1}, {1, 1, 1, 1}},
                 {{1, 7, 5, 3}, {1, 7, 5, 3}},
                 {{2, 8, 8, 16}, {2, 8, 8, 16}},
                 {{1, 4, 6, 17}, {1, 4, 6, 17}}},
                {DType::F32},
                {range(-1, 1), range(1, 1)}});
  cs.push_back({"avg_pool_2x2_stride2_valid",
                R"(
function (I[N, X, Y, C]) -> (O) {
  S[n, x, y, c : N, X / 2, Y / 2, C] = +(I[n, 2 * x + i, 2 * y + j, c]), i < 2, j < 2;
  O = S / 4;
})",
                {{{1, 2, 2, 1}}, {{1, 7, 5, 3}}, {{2, 8, 8, 16}}, {{1, 9, 4, 17}}}});
  cs.push_back({"global_avg_pool", R"(
function (I[N, X, Y, C]) -> (O) {
  S[n, c : N, C] = +(I[n, x, y, c]);
  O = S / (X * Y);
})",
                pool_shapes()});
  cs.push_back({"global_max_pool", R"(
function (I[N, X, Y, C]) -> (O) {
  O[n, c : N, C] = >(I[n, x, y, c]);
})",
                pool_shapes()});
  return cs;
}

std::vector<Case> composite_family() {
  const std::vector<ShapeSet> rows = {{{1, 1}},  {{7, 13}}, {{16, 15}},
                                      {{3, 17}}, {{4, 64}}, {{2, 65}}};
  std::vector<Case> cs;
  // Reduced dims kept as size 1 so that numpy broadcasting lines them up with the rows.
  Case softmax{"softmax_rows", R"(
function (X[R, C]) -> (O) {
  M[i, 0 : R, 1] = >(X[i, j]);
  E = exp(X - M);
  S[i, 0 : R, 1] = +(E[i, j]);
  O = E / S;
})",
               rows};
  softmax.ranges = {range(-4, 4)};
  cs.push_back(softmax);
  cs.push_back({"log_sum_exp", R"(
function (X[R, C]) -> (O) {
  M[i : R] = >(X[i, j]);
  D = X - reshape(M, R, 1);
  E = exp(D);
  S[i : R] = +(E[i, j]);
  O = log(S) + M;
})",
                rows});
  cs.push_back({"layer_norm_rows",
                R"(
function (X[R, C], G[C], B[C]) -> (O) {
  S[i, 0 : R, 1] = +(X[i, j]);
  Mu = S / C;
  D = X - Mu;
  V[i, 0 : R, 1] = +(D[i, j] * D[i, j]);
  O = D / sqrt(V / C + 0.00001) * G + B;
})",
                {{{1, 1}, {1}, {1}},
                 {{7, 13}, {13}, {13}},
                 {{3, 16}, {16}, {16}},
                 {{2, 17}, {17}, {17}},
                 {{5, 64}, {64}, {64}}},
                {DType::F32},
                {},
                testing::Tolerance{1e-4, 1e-5}});
  cs.push_back({"sum_of_squares_3d",
                R"(
function (X[A, B, C]) -> (O) {
  O[b : B] = +(X[a, b, c] * X[a, b, c]);
})",
                {{{1, 1, 1}}, {{3, 7, 5}}, {{2, 16, 17}}, {{1, 65, 16}}}});
  // Long reductions whose loads no two outputs share: on GPUs a workgroup per output splits k
  // (jit/codegen/gpu/reduction_kernel.h); lengths past, at and off the workgroup's size.
  cs.push_back({"long_row_reductions", R"(
function (X[R, C]) -> (S, Mx, Mn) {
  S[i : R] = +(X[i, j]);
  Mx[i : R] = >(X[i, j]);
  Mn[i : R] = <(X[i, j]);
})",
                {{{3, 700}}, {{1, 256}}, {{2, 1000}}, {{4, 64}}},
                {DType::F32},
                {},
                testing::Tolerance{1e-4, 1e-5}});
  cs.push_back({"long_row_product", R"(
function (X[R, C]) -> (P) {
  P[i : R] = *(X[i, j]);
})",
                {{{3, 300}}, {{2, 97}}},
                {DType::F32},
                {range(0.95, 1.05)},
                testing::Tolerance{1e-4, 1e-5}});
  cs.push_back({"long_reductions_3d_and_columns", R"(
function (X[A, B, C], Y[R, Q]) -> (O, Cs) {
  O[a, b : A, B] = +(X[a, b, c]);
  Cs[q : Q] = +(Y[r, q]);
})",
                {{{2, 3, 130}, {500, 3}}, {{1, 2, 64}, {64, 1}}},
                {DType::F32},
                {},
                testing::Tolerance{1e-4, 1e-5}});
  cs.push_back({"long_int_and_bool_reductions", R"(
function (X[R, C], B[R, C]) -> (S, Any) {
  S[i : R] = +(X[i, j]);
  Any[i : R] = +(B[i, j]);
})",
                {{{3, 300}, {3, 300}}, {{2, 65}, {2, 65}}},
                {DType::I32, DType::Bool}});
  cs.push_back({"max_abs_reduction", R"(
function (X[A, B]) -> (O) {
  Y = abs(X);
  O[] = >(Y[i, j]);
})",
                rows});
  return cs;
}

}  // namespace

Family pooling_reduction_cases() {
  Family f{"pooling_reductions", {}};
  for (auto part : {pool_family(), composite_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
