/* The context's memory limit from C99 (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT and
 * PLAIDML_MEMORY_LIMIT): bad values, the OUT_OF_MEMORY messages of executes, compiles and buffers
 * over the limit with their figures, a failed execute that leaves everything as it was, and
 * shapes whose byte size overflows 64 bits. Nothing here allocates more than a few KiB: every
 * refusal comes before the allocation. */
#define _POSIX_C_SOURCE 200112L /* setenv */

#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

/* At N = 4 (f32): C is 6553600 x 4 floats, 100 MiB; D is 16 bytes. */
static const char* kBig =
    "function (A[N]) -> (C, D) { C[i, j : 6553600, N] = +(A[j]); D = A + 1; }";
static const int64_t kFour[1] = {4};

static plaidml_context* limited_context(int64_t limit) {
  plaidml_context_options* opts = NULL;
  plaidml_context* ctx = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_OK(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, limit));
  CHECK_OK(plaidml_context_create(opts, &ctx));
  plaidml_context_options_destroy(opts);
  return ctx;
}

static plaidml_tensor_shape f32_shape(size_t rank, const int64_t* dims) {
  plaidml_tensor_shape s;
  s.dtype = PLAIDML_DTYPE_FLOAT32;
  s.rank = rank;
  s.dims = dims;
  return s;
}

static void test_option_values(void) {
  plaidml_context_options* opts = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_ERR(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, -1),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_context_options_set_int: PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT must be a number "
            "of bytes >= 0 (0: the default), got -1");
  CHECK_ERR(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, "8G"),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_context_options_set_string: PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT takes an "
            "integer: use plaidml_context_options_set_int");
  CHECK_OK(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, 0));
  CHECK_OK(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, INT64_MAX));
  plaidml_context_options_destroy(opts);
}

/* A 100 MiB output under a 64 MiB limit: refused with the figures; the given output D keeps its
 * contents, no buffer comes back, and the context runs the next program. */
static void test_execute_over_limit(void) {
  plaidml_context* ctx = limited_context(INT64_C(64) << 20);
  plaidml_program *big = NULL, *twice = NULL;
  plaidml_buffer *a = NULL, *d = NULL, *out2[2] = {NULL, NULL}, *doubled = NULL;
  const float ones[4] = {1, 2, 3, 4}, sevens[4] = {7, 7, 7, 7}, want[4] = {2, 4, 6, 8};
  float got[4] = {0, 0, 0, 0};
  CHECK_OK(plaidml_program_from_tile(kBig, &big));
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = A * 2; }", &twice));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, kFour, ones, 16, &a));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, kFour, sevens, 16, &d));
  if (!ctx || !big || !twice || !a || !d) return;
  out2[1] = d;
  CHECK_ERR(plaidml_execute(ctx, big, 1, NULL, &a, 2, NULL, out2), PLAIDML_STATUS_OUT_OF_MEMORY,
            "running the program on cpu:0 needs 100.0 MiB (inputs 16 B, outputs 100.0 MiB, "
            "intermediates 0 B, constants 0 B), but the context's memory limit is 64.0 MiB "
            "(PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  CHECK(out2[0] == NULL);
  CHECK(out2[1] == d);
  CHECK_OK(plaidml_buffer_read(d, got, sizeof(got)));
  CHECK(harness_close(got, sevens, 4, 0));
  CHECK_OK(plaidml_execute(ctx, twice, 1, NULL, &a, 1, NULL, &doubled));
  CHECK_OK(plaidml_buffer_read(doubled, got, sizeof(got)));
  CHECK(harness_close(got, want, 4, 0));
  plaidml_buffer_destroy(doubled);
  plaidml_buffer_destroy(d);
  plaidml_buffer_destroy(a);
  plaidml_program_destroy(twice);
  plaidml_program_destroy(big);
  plaidml_context_destroy(ctx);
}

/* plaidml_compile says so at once; plaidml_program_memory reports the figures and the budget. */
static void test_compile_and_figures(void) {
  plaidml_context* ctx = limited_context(INT64_C(64) << 20);
  plaidml_program* big = NULL;
  plaidml_tensor_shape shape = f32_shape(1, kFour);
  plaidml_memory m;
  CHECK_OK(plaidml_program_from_tile(kBig, &big));
  if (!ctx || !big) return;
  CHECK_ERR(plaidml_compile(ctx, big, 1, NULL, &shape), PLAIDML_STATUS_OUT_OF_MEMORY,
            "running the program on cpu:0 needs 100.0 MiB (inputs 16 B, outputs 100.0 MiB, "
            "intermediates 0 B, constants 0 B), but the context's memory limit is 64.0 MiB "
            "(PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  CHECK_OK(plaidml_program_memory(ctx, big, 1, NULL, &shape, &m));
  CHECK(m.outputs_bytes == (UINT64_C(100) << 20) + 16);
  CHECK(m.peak_bytes == (UINT64_C(100) << 20) + 32);
  CHECK(m.budget_bytes == UINT64_C(64) << 20);
  CHECK(m.device_memory_bytes > 0);
  /* An older struct without budget_bytes is still filled up to what it has. */
  memset(&m, 0xab, sizeof(m));
  m.struct_size = offsetof(plaidml_memory, budget_bytes);
  CHECK_OK(plaidml_program_memory(ctx, big, 1, NULL, &shape, &m));
  CHECK(m.peak_bytes == (UINT64_C(100) << 20) + 32);
  CHECK(m.budget_bytes == UINT64_C(0xabababababababab));
  plaidml_program_destroy(big);
  plaidml_context_destroy(ctx);
}

/* A peak of exactly the limit runs; a limit one byte smaller refuses it. */
static void test_boundary(void) {
  /* B[i : 16] = A[i] + 1 over f32[16]: 64 bytes in, 64 out, peak 128. */
  plaidml_context* exact = limited_context(128);
  plaidml_context* short_by_one = limited_context(127);
  plaidml_program* p = NULL;
  const int64_t dims[1] = {16};
  float in[16] = {0};
  plaidml_buffer *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL;
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = A + 1; }", &p));
  CHECK_OK(plaidml_buffer_create_from_host(exact, PLAIDML_DTYPE_FLOAT32, 1, dims, in, 64, &a));
  CHECK_OK(plaidml_execute(exact, p, 1, NULL, &a, 1, NULL, &b));
  CHECK_OK(
      plaidml_buffer_create_from_host(short_by_one, PLAIDML_DTYPE_FLOAT32, 1, dims, in, 64, &a2));
  CHECK_ERR(plaidml_execute(short_by_one, p, 1, NULL, &a2, 1, NULL, &b2),
            PLAIDML_STATUS_OUT_OF_MEMORY,
            "running the program on cpu:0 needs 128 B (inputs 64 B, outputs 64 B, intermediates 0 "
            "B, constants 0 B), but the context's memory limit is 127 B");
  CHECK(b2 == NULL);
  plaidml_buffer_destroy(a2);
  plaidml_buffer_destroy(b);
  plaidml_buffer_destroy(a);
  plaidml_program_destroy(p);
  plaidml_context_destroy(short_by_one);
  plaidml_context_destroy(exact);
}

/* Buffers larger than the limit, from plaidml_buffer_create and _from_host. */
static void test_buffers_over_limit(void) {
  plaidml_context* ctx = limited_context(1024);
  plaidml_buffer* b = NULL;
  const int64_t dims[1] = {257}; /* 1028 bytes of f32 */
  float data[257] = {0};
  if (!ctx) return;
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, &b),
            PLAIDML_STATUS_OUT_OF_MEMORY,
            "plaidml_buffer_create: a buffer of shape f32[257] needs 1028 bytes, but the "
            "context's memory limit is 1024 bytes (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  CHECK(b == NULL);
  CHECK_ERR(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, data,
                                            sizeof(data), &b),
            PLAIDML_STATUS_OUT_OF_MEMORY,
            "plaidml_buffer_create_from_host: a buffer of shape f32[257] needs 1028 bytes, but "
            "the context's memory limit is 1024 bytes (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)");
  CHECK(b == NULL);
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, kFour, &b));
  plaidml_buffer_destroy(b);
  plaidml_context_destroy(ctx);
}

/* The variable, when the option is 0; the option wins; a malformed value fails the context. */
static void test_environment(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* big = NULL;
  plaidml_tensor_shape shape = f32_shape(1, kFour);
  plaidml_memory m;
  CHECK_OK(plaidml_program_from_tile(kBig, &big));
  setenv("PLAIDML_MEMORY_LIMIT", "64M", 1);
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_ERR(plaidml_compile(ctx, big, 1, NULL, &shape), PLAIDML_STATUS_OUT_OF_MEMORY,
            "but the context's memory limit is 64.0 MiB (PLAIDML_MEMORY_LIMIT)");
  plaidml_context_destroy(ctx);
  ctx = limited_context(INT64_C(1) << 30); /* the option beats the variable */
  CHECK_OK(plaidml_compile(ctx, big, 1, NULL, &shape));
  plaidml_context_destroy(ctx);
  setenv("PLAIDML_MEMORY_LIMIT", "64 MB", 1);
  ctx = NULL;
  CHECK_ERR(plaidml_context_create(NULL, &ctx), PLAIDML_STATUS_INVALID_ARGUMENT,
            "PLAIDML_MEMORY_LIMIT must be a number of bytes, optionally with K, M, G or T (powers "
            "of 1024: \"8G\", \"512MiB\"); got '64 MB'");
  CHECK(ctx == NULL);
  unsetenv("PLAIDML_MEMORY_LIMIT");
  /* The default: some positive limit, never above the CPU's (physical) memory. */
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  CHECK_OK(plaidml_program_memory(ctx, big, 1, NULL, &shape, &m));
  CHECK(m.budget_bytes > 0);
  CHECK(m.budget_bytes <= m.device_memory_bytes);
  plaidml_context_destroy(ctx);
  plaidml_program_destroy(big);
}

/* Dims whose product overflows 64 bits are the caller's error, wherever shapes come in. */
static void test_size_overflow(void) {
  plaidml_context* ctx = limited_context(0);
  plaidml_program *outer = NULL, *fixed = NULL;
  plaidml_buffer *b = NULL, *a = NULL, *c = NULL;
  const int64_t wide[3] = {INT64_C(4294967296), INT64_C(4294967296), 4};
  const int64_t empty_wide[4] = {0, INT64_C(1) << 31, INT64_C(1) << 31, 4};
  const int64_t n32[1] = {INT64_C(4294967296)};
  plaidml_tensor_shape shape = f32_shape(3, wide);
  const float ones[4] = {1, 1, 1, 1};
  if (!ctx) return;
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 3, wide, &b),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_buffer_create: the shape f32[4294967296, 4294967296, 4] is too large: its "
            "byte size overflows 64-bit integers");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 4, empty_wide, &b),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_buffer_create: the shape f32[0, 2147483648, 2147483648, 4] is too large: a "
            "dimension's byte stride overflows 64-bit integers");
  CHECK(b == NULL);
  /* An outer product of an input of 2^32 floats with itself: 2^64 elements at binding. */
  CHECK_OK(plaidml_program_from_tile(
      "function (A[N]) -> (C) { C[i, j : N, N] = +(A[i] * A[j]); }", &outer));
  CHECK_ERR(plaidml_compile(ctx, outer, 1, NULL, &shape), PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_compile: the shape f32[4294967296, 4294967296, 4] is too large");
  shape = f32_shape(1, n32);
  CHECK_ERR(plaidml_compile(ctx, outer, 1, NULL, &shape), PLAIDML_STATUS_INVALID_ARGUMENT,
            "1:26: 'C' would have shape f32[4294967296, 4294967296], which is too large: its "
            "byte size overflows 64-bit integers");
  /* Sizes written into the program overflow the same way at execute. */
  CHECK_OK(plaidml_program_from_tile(
      "function (A[N]) -> (C) { C[i, j, k : 4294967296, 4294967296, N] = +(A[k]); }", &fixed));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, kFour, ones, 16, &a));
  CHECK_ERR(plaidml_execute(ctx, fixed, 1, NULL, &a, 1, NULL, &c), PLAIDML_STATUS_INVALID_ARGUMENT,
            "1:26: 'C' would have shape f32[4294967296, 4294967296, 4], which is too large: its "
            "byte size overflows 64-bit integers");
  CHECK(c == NULL);
  plaidml_buffer_destroy(a);
  plaidml_program_destroy(fixed);
  plaidml_program_destroy(outer);
  plaidml_context_destroy(ctx);
}

int main(void) {
  unsetenv("PLAIDML_MEMORY_LIMIT");
  test_option_values();
  test_execute_over_limit();
  test_compile_and_figures();
  test_boundary();
  test_buffers_over_limit();
  test_environment();
  test_size_overflow();
  return harness_finish();
}
