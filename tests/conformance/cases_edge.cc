// Edge values and edge indexing: IEEE specials (inf, NaN, signed zero, subnormals, overflow in
// casts), aggregation identities of every dtype class, wrap-around of wide integers, and
// contractions whose accesses use negative or non-unit coefficients, and generated index ranges
// that start below zero, reach past the end or hold no point.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

const std::vector<ShapeSet>& vec_shapes() {
  static const std::vector<ShapeSet> sets = {{{1}}, {{7}}, {{16}}, {{17}}, {{65}}};
  return sets;
}

Case unary(const char* name, const char* expr, testing::RandomOptions r) {
  Case c{name, std::string("function (X) -> (R) { R = ") + expr + "; }", vec_shapes()};
  c.ranges = {r};
  return c;
}

std::vector<Case> ieee_family() {
  std::vector<Case> cs;
  cs.push_back(unary("ieee_log_of_negative_is_nan", "log(X)", range(-1, 1)));
  cs.push_back(unary("ieee_sqrt_of_negative_is_nan", "sqrt(X)", range(-1, 1)));
  cs.push_back(unary("ieee_exp_overflow_and_underflow", "exp(X)", range(-200, 200)));
  // X - X is +0: x/0 is +-inf, 0/0 (never drawn exactly, but kept for the record) NaN.
  cs.push_back(unary("ieee_div_by_zero_is_inf", "X / (X - X)", range(-1, 1)));
  cs.push_back(unary("ieee_inf_minus_inf_is_nan", "X / (X - X) + (-X) / (X - X)", range(-1, 1)));
  cs.push_back(unary("ieee_cast_overflow_to_f16_inf", "as_float(X, 16)", range(-1e5, 1e5)));
  cs.push_back(unary("ieee_f32_subnormals", "X * 1e-38", range(-1, 1)));
  // C's pow and fmod where GPU built-ins are undefined: negative bases (an odd and an even
  // integer exponent give -8..8 and 0..4, a fraction NaN), 0^0 = 1, and fmod(x, +-inf) = x.
  cs.push_back(unary("ieee_pow_of_negative_bases", "pow(X, 3) + pow(X, 2) * 10", range(-2, 2)));
  cs.push_back(unary("ieee_pow_of_negative_base_fraction_is_nan", "pow(X, 0.5)", range(-1, 1)));
  cs.push_back(unary("ieee_pow_zero_to_zero_is_one", "pow(X - X, X - X)", range(-1, 1)));
  cs.push_back(unary("ieee_fmod_by_inf_is_x", "X % (X / (X - X))", range(-1, 1)));
  Case nan_max{"ieee_nan_in_elementwise_max", "function (X) -> (R) { R = max(log(X), -0.5); }",
               vec_shapes()};
  nan_max.ranges = {range(-1, 1)};
  cs.push_back(nan_max);
  Case inf_sum{"ieee_inf_in_sum",
               R"(
function (X[M, N]) -> (O) {
  Y = X / (X - X);
  O[i : M] = +(Y[i, j]);
})",
               {{{1, 1}}, {{3, 17}}, {{2, 64}}}};
  inf_sum.ranges = {range(0, 1)};
  cs.push_back(inf_sum);
  return cs;
}

std::vector<Case> identity_family() {
  std::vector<Case> cs;
  // Output elements that receive no point hold the identity of the aggregation.
  struct Id {
    const char* name;
    const char* agg;
    DType dtype;
  };
  const std::vector<Id> ids = {
      {"identity_max_f32", ">", DType::F32}, {"identity_min_f32", "<", DType::F32},
      {"identity_max_i8", ">", DType::I8},   {"identity_min_u8", "<", DType::U8},
      {"identity_min_i64", "<", DType::I64}, {"identity_prod_i32", "*", DType::I32},
      {"identity_max_f16", ">", DType::F16},
      // f16/bf16 sums and products accumulate in f32; the elements no point reaches must still
      // be written in the output's dtype (the CPU's init kernel stored f32 there and failed to
      // compile: found by fuzz_differential, fuzz/regressions/differential/f16_sum_init).
      {"identity_sum_f16", "+", DType::F16}, {"identity_prod_bf16", "*", DType::BF16}};
  for (const Id& id : ids) {
    Case c{id.name,
           std::string("function (X[N]) -> (O) { O[i : N + 4] = ") + id.agg + "(X[i - 2]); }",
           vec_shapes()};
    c.dtypes = {id.dtype};
    c.ranges = {dtype_is_float(id.dtype) ? range(-3, 3) : int_range(-3, 3)};
    cs.push_back(c);
  }
  cs.push_back({"identity_sum_even_positions",
                "function (X[N]) -> (O) { O[2 * i : 2 * N] = +(X[i]); }", vec_shapes()});
  return cs;
}

std::vector<Case> indexing_family() {
  std::vector<Case> cs;
  cs.push_back({"index_negative_coefficient",
                "function (X[N]) -> (O) { O[i : N] = +(X[N - 1 - i + j]), j < 2; }", vec_shapes()});
  cs.push_back({"index_stride3_gather",
                "function (X[N]) -> (O) { O[i : (N + 2) / 3] = +(X[3 * i]); }", vec_shapes()});
  cs.push_back({"index_three_reduced",
                "function (X[A, B, C]) -> (O) { O[] = +(X[i, j, k]), i + j + k < 5; }",
                {{{1, 1, 1}}, {{3, 7, 2}}, {{4, 4, 17}}}});
  cs.push_back({"index_diagonal_trace",
                "function (X[N, N]) -> (O) { O[] = +(X[i, i]); }",
                {{{1, 1}}, {{7, 7}}, {{17, 17}}, {{64, 64}}}});
  cs.push_back({"index_sum_of_two_indices",
                "function (A[N], B[M]) -> (O) { O[i + j : N + M - 1] = +(A[i] * B[j]); }",
                {{{1}, {1}}, {{7}, {3}}, {{16}, {17}}, {{65}, {2}}}});
  // Zero-size dims: an empty output, and an empty reduction (every element its identity).
  cs.push_back({"matmul_zero_size_dims",
                "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
                {{{0, 5}, {5, 7}}, {{3, 0}, {0, 7}}, {{3, 5}, {5, 0}}, {{17, 0}, {0, 33}}}});
  cs.push_back({"conv_zero_channels",
                "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
                "  O[n, y, x, co : N, H, W, CO] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n"
                "}",
                {{{1, 5, 6, 0}, {3, 3, 0, 32}}, {{0, 5, 6, 4}, {3, 3, 4, 32}}}});
  Case wide{"int64_wraps",
            "function (A, B) -> (R) { R = A * B + A; }",
            {{{1}, {1}}, {{17}, {17}}, {{65}, {65}}}};
  wide.dtypes = {DType::I64};
  wide.ranges = {int_range(int64_t{1} << 40, int64_t{1} << 41)};
  cs.push_back(wide);
  Case u32{"uint32_wraps",
           "function (A, B) -> (R) { R = A * B - B * 7; }",
           {{{1}, {1}}, {{17}, {17}}, {{65}, {65}}}};
  u32.dtypes = {DType::U32};
  u32.ranges = {int_range(60000, 4000000000)};
  cs.push_back(u32);
  return cs;
}

// Index ranges the compiler derives from the accesses, generated over offsets: ranges that start
// below zero (`X[k + 2]` runs k over [-2, N - 2): an unsigned-wrap flag on the loop counter made
// such loops endless on the CPU), windows partly outside the input on either side, strided
// windows, and ranges with no point at all (every output its identity).
std::string signed_name(int v) { return (v < 0 ? "m" : "p") + std::to_string(v < 0 ? -v : v); }

std::vector<Case> range_family() {
  std::vector<Case> cs;
  for (int o : {-5, -2, 2, 5}) {
    std::string off = (o < 0 ? " - " : " + ") + std::to_string(o < 0 ? -o : o);
    cs.push_back({"range_sum_offset_" + signed_name(o),
                  "function (X[N]) -> (O) { O[] = +(X[k" + off + "]); }", vec_shapes()});
    cs.push_back({"range_max_offset_" + signed_name(o),
                  "function (X[N]) -> (O) { O[] = >(X[k" + off + "]); }", vec_shapes()});
    cs.push_back({"range_window_offset_" + signed_name(o),
                  "function (X[N]) -> (O) { O[i : N] = +(X[i + k" + off + "]), k < 3; }",
                  vec_shapes()});
    cs.push_back({"range_stride2_offset_" + signed_name(o),
                  "function (X[N]) -> (O) { O[i : (N + 1) / 2] = +(X[2 * i + k" + off +
                      "]), k < 3; }",
                  vec_shapes()});
  }
  cs.push_back({"range_empty_past_the_end",
                "function (X[N]) -> (O) { O[i : N] = +(X[i + N]); }", vec_shapes()});
  cs.push_back({"range_empty_before_the_start",
                "function (X[N]) -> (O) { O[i : N] = >(X[i - N]); }", vec_shapes()});
  Case empty_f16{"range_empty_sum_f16_default",
                 "function (X[N]) -> (O) { O[i : N] = +(X[i + N]) default 2.5; }", vec_shapes()};
  empty_f16.dtypes = {DType::F16};
  cs.push_back(empty_f16);
  return cs;
}

}  // namespace

Family edge_cases() {
  Family f{"edges", {}};
  for (auto part : {ieee_family(), identity_family(), indexing_family(), range_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
