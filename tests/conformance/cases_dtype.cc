// Every dtype of docs/tile.md section 4 through arithmetic, a reduction and a matmul; conversions
// from and to every dtype; mixed-dtype promotion; integer wrap-around in sums. A device that
// lacks a dtype lists the case in unsupported/<kind>.txt rather than computing a wrong answer.
#include <fmt/format.h>

#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

const std::vector<DType> kAllDTypes = {DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
                                       DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
                                       DType::BF16, DType::F32, DType::F64};

std::string dname(DType d) { return std::string(dtype_name(d)); }

// Small values: products and sums of a few dozen stay exact in every dtype but bool.
testing::RandomOptions small_values(DType d) {
  return dtype_is_float(d) ? range(-2, 2) : int_range(-5, 5);
}

std::vector<Case> per_dtype_family() {
  const std::vector<ShapeSet> ew = {
      {{1}, {1}}, {{7}, {7}}, {{16}, {16}}, {{17}, {17}}, {{3, 65}, {65}}};
  const std::vector<ShapeSet> red = {{{1, 1}}, {{7, 13}}, {{3, 16}}, {{2, 17}}, {{5, 64}}};
  const std::vector<ShapeSet> mm = {
      {{1, 1}, {1, 1}}, {{7, 13}, {13, 5}}, {{16, 17}, {17, 16}}, {{3, 31}, {31, 65}}};
  std::vector<Case> cs;
  for (DType d : kAllDTypes) {
    std::string n = dname(d);
    bool is_bool = d == DType::Bool;
    // bool has no arithmetic: exercise it with logic and comparisons.
    std::string ew_expr = is_bool ? "(A & B) | ~A" : "A * B + A - B";
    Case arith{"dtype_elementwise_" + n, "function (A, B) -> (R) { R = " + ew_expr + "; }", ew};
    arith.dtypes = {d};
    arith.ranges = {small_values(d)};
    cs.push_back(arith);

    Case cmp{"dtype_compare_select_" + n, "function (A, B) -> (R) { R = select(A < B, B, A); }",
             ew};
    cmp.dtypes = {d};
    cmp.ranges = {small_values(d)};
    cs.push_back(cmp);

    Case sum{"dtype_sum_rows_" + n, "function (X[M, N]) -> (O) { O[i : M] = +(X[i, j]); }", red};
    Case mx{"dtype_max_rows_" + n, "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }", red};
    Case mn{"dtype_min_all_" + n, "function (X[M, N]) -> (O) { O[] = <(X[i, j]); }", red};
    for (Case* c : {&sum, &mx, &mn}) {
      c->dtypes = {d};
      c->ranges = {small_values(d)};
      cs.push_back(*c);
    }
    if (is_bool) continue;
    Case matmul{"dtype_matmul_" + n, R"(
function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); })",
                mm};
    matmul.dtypes = {d};
    matmul.ranges = {dtype_is_float(d) ? range(-1, 1) : int_range(0, 3)};
    cs.push_back(matmul);
  }
  return cs;
}

// Conversions: every dtype to f32 and i32, and f32 to every dtype.
std::vector<Case> cast_family() {
  const std::vector<ShapeSet> sets = {{{1}}, {{7}}, {{16}}, {{17}}, {{2, 65}}};
  std::vector<Case> cs;
  for (DType d : kAllDTypes) {
    std::string n = dname(d);
    for (const char* to : {"as_float(X, 32)", "as_int(X, 32)"}) {
      bool is_float_target = std::string(to).find("float") != std::string::npos;
      Case c{fmt::format("cast_{}_to_{}", n, is_float_target ? "f32" : "i32"),
             std::string("function (X) -> (R) { R = ") + to + "; }", sets};
      c.dtypes = {d};
      c.ranges = {dtype_is_float(d) ? range(-100, 100) : int_range(-120, 120)};
      cs.push_back(c);
    }
  }
  struct Target {
    const char* name;
    const char* call;
    double lo, hi;  // f32 inputs whose conversion is defined (in range of the target)
  };
  const std::vector<Target> targets = {
      {"bool", "as_bool(X)", -2, 2},           {"i8", "as_int(X, 8)", -120, 120},
      {"i16", "as_int(X, 16)", -3e4, 3e4},     {"i64", "as_int(X, 64)", -1e9, 1e9},
      {"u8", "as_uint(X, 8)", 0, 250},         {"u16", "as_uint(X, 16)", 0, 6e4},
      {"u32", "as_uint(X, 32)", 0, 4e9},       {"u64", "as_uint(X, 64)", 0, 1e12},
      {"f16", "as_float(X, 16)", -6e4, 6e4},   {"bf16", "as_bfloat(X, 16)", -1e30, 1e30},
      {"f64", "as_float(X, 64)", -1e30, 1e30}, {"f16_small", "as_float(X, 16)", -1e-4, 1e-4},
  };
  for (const Target& t : targets) {
    Case c{std::string("cast_f32_to_") + t.name,
           std::string("function (X) -> (R) { R = ") + t.call + "; }", sets};
    c.ranges = {range(t.lo, t.hi)};
    cs.push_back(c);
  }
  Case narrowing{"cast_i32_to_i8_wraps", "function (X) -> (R) { R = as_int(X, 8); }", sets};
  narrowing.dtypes = {DType::I32};
  narrowing.ranges = {int_range(-1000, 1000)};
  cs.push_back(narrowing);
  return cs;
}

std::vector<Case> promotion_family() {
  const std::vector<ShapeSet> ew = {{{1}, {1}}, {{7}, {7}}, {{17}, {17}}, {{2, 65}, {65}}};
  struct Mix {
    DType a, b;
  };
  const std::vector<Mix> mixes = {{DType::U8, DType::I8},    {DType::I32, DType::F16},
                                  {DType::U32, DType::I32},  {DType::I64, DType::F32},
                                  {DType::BF16, DType::F16}, {DType::Bool, DType::I16},
                                  {DType::U64, DType::I64},  {DType::F32, DType::F64}};
  std::vector<Case> cs;
  for (const Mix& m : mixes) {
    Case c{fmt::format("promote_{}_{}", dname(m.a), dname(m.b)),
           "function (A, B) -> (R) { R = A + B * 2; }", ew};
    c.dtypes = {m.a, m.b};
    c.ranges = {small_values(m.a), small_values(m.b)};
    cs.push_back(c);
  }
  Case lit{"promote_int_literal_keeps_f16",
           "function (A) -> (R) { R = A * 3 + 1; }",
           {{{1}}, {{17}}, {{65}}}};
  lit.dtypes = {DType::F16};
  cs.push_back(lit);
  // Integer sums wrap in the output dtype (docs/tile.md section 2).
  for (DType d : {DType::I8, DType::U8, DType::I16}) {
    Case wrap{"sum_wraps_" + dname(d),
              "function (X[N]) -> (O) { O[] = +(X[i]); }",
              {{{17}}, {{64}}, {{257}}}};
    wrap.dtypes = {d};
    wrap.ranges = {int_range(60, 120)};
    cs.push_back(wrap);
  }
  // f16 accumulates in f32 and rounds once: a long sum of small values shows the difference.
  Case acc{"f16_sum_accumulates_in_f32",
           "function (X[N]) -> (O) { O[] = +(X[i]); }",
           {{{1}}, {{1000}}, {{4097}}}};
  acc.dtypes = {DType::F16};
  acc.ranges = {range(0.5, 1)};
  cs.push_back(acc);
  return cs;
}

// f16 products summed in f32: on devices with cooperative matrices (NVIDIA's Vulkan driver)
// these take the tensor-core kernels (jit/codegen/gpu/matrix_kernel.h), elsewhere the tiled
// ones; shapes off every fragment, tile and chunk edge (staged operands), on fragment edges but
// off tile edges (operands read straight from memory), and on 64 x 64 tile edges with k a
// multiple of 32 (workgroup-scope matrices where the driver has them: row- and column-major
// operands, batches, one and two k steps a chunk).
std::vector<Case> f16_product_family() {
  std::vector<Case> cs;
  cs.push_back({"f16_matmul",
                "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
                {{{200, 72}, {72, 136}},
                 {{1, 40}, {40, 3}},
                 {{144, 48}, {48, 80}},
                 {{96, 64}, {64, 200}},
                 {{128, 64}, {64, 256}},
                 {{64, 96}, {96, 192}}}});
  cs.push_back({"f16_matmul_transposed_a",
                "function (A[K, M], B[K, N]) -> (C) { C[i, j : M, N] = +(A[k, i] * B[k, j]); }",
                {{{64, 40}, {64, 48}}, {{64, 64}, {64, 128}}}});
  cs.push_back({"f16_matmul_bias_relu", R"(
function (A[M, K], B[K, N], Bias[N]) -> (R) {
  C[i, j : M, N] = +(A[i, k] * B[k, j]);
  R = relu(C + Bias);
})",
                {{{70, 48}, {48, 40}, {40}}}});
  cs.push_back(
      {"f16_batched_matmul",
       "function (A[B, M, K], X[B, K, N]) -> (C) { C[b, i, j : B, M, N] = +(A[b, i, k] "
       "* X[b, k, j]); }",
       {{{3, 40, 48}, {3, 48, 56}}, {{3, 24, 64}, {3, 64, 40}}, {{2, 64, 32}, {2, 32, 64}}}});
  cs.push_back(
      {"f16_matmul_transposed_b",
       "function (A[M, K], B[N, K]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[j, k]); }",
       {{{40, 64}, {72, 64}}, {{48, 32}, {80, 32}}, {{48, 48}, {80, 48}}, {{128, 64}, {64, 64}}}});
  cs.push_back({"f16_conv_1x1",
                R"(
function (I[N, H, W, CI], F[CI, CO]) -> (O) {
  O[n, y, x, co : N, H, W, CO] = +(I[n, y, x, ci] * F[ci, co]);
})",
                {{{2, 9, 9, 32}, {32, 40}}, {{2, 4, 8, 32}, {32, 48}}, {{2, 8, 8, 32}, {32, 64}}}});
  for (Case& c : cs) c.dtypes = {DType::F16};
  return cs;
}

}  // namespace

Family dtype_cases() {
  Family f{"dtypes", {}};
  for (auto part :
       {per_dtype_family(), cast_family(), promotion_family(), f16_product_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
