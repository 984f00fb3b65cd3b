// Structural ops and program structure (docs/tile.md sections 1 and 3): reshape, index, shape,
// gather (clamping), scatter (accumulating), the taus88 prng, scalars, several outputs, outputs
// that alias inputs or literals, and chains that mix contractions with elementwise code.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

std::vector<Case> shape_ops_family() {
  std::vector<Case> cs;
  const std::vector<ShapeSet> mats = {{{1, 1}}, {{7, 13}}, {{16, 17}}, {{3, 64}}, {{65, 2}}};
  cs.push_back(
      {"reshape_transpose_dims", "function (X[M, N]) -> (R) { R = reshape(X, N, M) * 2; }", mats});
  cs.push_back({"reshape_flatten_then_add",
                "function (X[M, N], B[K]) -> (R) { R = reshape(X, M * N) + B; }",
                {{{1, 1}, {1}}, {{7, 13}, {91}}, {{16, 17}, {1}}, {{4, 16}, {64}}}});
  cs.push_back({"reshape_split",
                "function (X[N]) -> (R) { R = reshape(X, 2, N / 2, 1); }",
                {{{2}}, {{16}}, {{34}}, {{130}}}});
  Case idx{"index_axes",
           R"(
function (X[A, B, C]) -> (I0, I1, I2) {
  I0 = index(X, 0);
  I1 = index(X, 1);
  I2 = index(X, 2) * 3 + I1;
})",
           {{{1, 1, 1}}, {{2, 7, 13}}, {{3, 16, 17}}, {{1, 2, 65}}}};
  cs.push_back(idx);
  cs.push_back({"shape_of",
                "function (X) -> (S) { S = shape(X); }",
                {{{1}}, {{7, 13}}, {{2, 3, 65}}, {{}}}});
  cs.push_back({"iota_via_index",
                R"(
function (X[N]) -> (R) {
  R = X + as_float(index(X, 0), 32) / 4;
})",
                {{{1}}, {{15}}, {{16}}, {{17}}, {{64}}}});
  return cs;
}

std::vector<Case> gather_scatter_family() {
  std::vector<Case> cs;
  // Indices run past both ends: gather clamps them into range.
  Case gather{"gather_rows_clamped",
              "function (V[N, C], I) -> (R) { R = gather(V, I); }",
              {{{1, 1}, {1}}, {{7, 3}, {13}}, {{16, 17}, {4, 5}}, {{65, 2}, {31}}}};
  gather.dtypes = {DType::F32, DType::I32};
  gather.ranges = {range(-1, 1), int_range(-3, 70)};
  cs.push_back(gather);
  Case gather64{"gather_i64_indices_1d",
                "function (V[N], I[M]) -> (R) { R = gather(V, I); }",
                {{{1}, {3}}, {{17}, {16}}, {{64}, {65}}}};
  gather64.dtypes = {DType::F32, DType::I64};
  gather64.ranges = {range(-1, 1), int_range(0, 63)};
  cs.push_back(gather64);
  Case scatter{"scatter_accumulates",
               "function (E[A, C], I[A], V[N, C]) -> (R) { R = scatter(E, I, V); }",
               {{{1, 1}, {1}, {1, 1}},
                {{13, 3}, {13}, {7, 3}},
                {{64, 16}, {64}, {17, 16}},
                {{5, 17}, {5}, {65, 17}}}};
  scatter.dtypes = {DType::F32, DType::I32, DType::F32};
  scatter.ranges = {range(-1, 1), int_range(0, 6), range(-1, 1)};
  cs.push_back(scatter);
  return cs;
}

std::vector<Case> prng_family() {
  std::vector<Case> cs;
  // taus88 state words must exceed 128 to be valid seeds.
  Case prng{"prng_taus88",
            R"(
function (S[R, C]) -> (P, V, T) {
  P = prng_step(S, 3, 17);
  V = prng_value(P);
  T = prng_state(P);
})",
            {{{3, 2048}}}};
  prng.dtypes = {DType::U32};
  prng.ranges = {int_range(200, 1000000)};
  cs.push_back(prng);
  return cs;
}

std::vector<Case> program_structure_family() {
  std::vector<Case> cs;
  cs.push_back({"scalar_inputs_and_output",
                R"(
function (A[], B[], X[N]) -> (S, R) {
  S = A * B + 1;
  R = X * S;
})",
                {{{}, {}, {1}}, {{}, {}, {17}}, {{}, {}, {64}}}});
  cs.push_back({"output_is_input_and_literal",
                R"(
function (A[N]) -> (X, Y, L) {
  X = A;
  Y = X * 2;
  L = 7;
})",
                {{{1}}, {{16}}, {{17}}}});
  cs.push_back({"contraction_of_elementwise_of_contraction",
                R"(
function (A[M, K], B[K, N]) -> (O) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
  E = exp(C * 0.1);
  O[i : M] = +(E[i, j]);
})",
                {{{1, 1}, {1, 1}}, {{7, 13}, {13, 5}}, {{16, 17}, {17, 16}}, {{33, 8}, {8, 65}}}});
  cs.push_back({"diamond_reuse",
                R"(
function (X[N, M]) -> (O) {
  A = X * 2;
  B = A + 1;
  C = A - 1;
  S[i : N] = +(B[i, j] * C[i, j]);
  T[i : N] = >(A[i, j]);
  O = S + T;
})",
                {{{1, 1}}, {{7, 3}}, {{17, 16}}}});
  return cs;
}

}  // namespace

Family structural_cases() {
  Family f{"structural", {}};
  for (auto part :
       {shape_ops_family(), gather_scatter_family(), prng_family(), program_structure_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

std::vector<Family> all_families() {
  return {contraction_cases(), convolution_cases(), pooling_reduction_cases(),
          elementwise_cases(), dtype_cases(),       structural_cases(),
          edge_cases()};
}

}  // namespace plaidml::conformance
