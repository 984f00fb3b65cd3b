/* cache_child DIR N [GO_FILE]: one process of the multi-process kernel-cache tests, and the
 * timing probe for cold and warm compiles. It compiles and runs an N x N x N f32 matmul through
 * the C API with the disk cache in DIR ("-": leave the option unset, so PLAIDML_CACHE_DIR or the
 * default decides), checks the product against a hand-written loop, and prints one line:
 *   ok=1 compiles=1 kernels_compiled=K disk_hits=H ... compile_ms=T run_ms=R
 * With GO_FILE it first waits until that file exists, so that a parent can start several
 * children at the same moment. Exit status: 0 when the numbers are right, 1 when they are not,
 * 2 on a plaidml error (the message goes to stderr). */
#define _POSIX_C_SOURCE 200809L
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "}\n";

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fail(const char* what, plaidml_status status) {
  fprintf(stderr, "cache_child: %s: %s: %s\n", what, plaidml_status_name(status),
          plaidml_last_error_message());
  return 2;
}

#define TRY(what, call)                                                   \
  do {                                                                    \
    plaidml_status try_status_ = (call);                                  \
    if (try_status_ != PLAIDML_STATUS_OK) return fail(what, try_status_); \
  } while (0)

/* Small integers: every partial sum is exact in f32 for N up to 2^20. */
static float a_at(int64_t i, int64_t k) { return (float)((i * 3 + k) % 5 - 2); }
static float b_at(int64_t k, int64_t j) { return (float)((k + 2 * j) % 7 - 3); }

/* Checks every row for small N, 17 spread rows for large ones. */
static int product_ok(const float* c, int64_t n) {
  int64_t step = n <= 256 ? 1 : n / 16, i, j, k;
  for (i = 0; i < n; i += step) {
    for (j = 0; j < n; ++j) {
      float want = 0;
      for (k = 0; k < n; ++k) want += a_at(i, k) * b_at(k, j);
      if (c[i * n + j] != want) {
        fprintf(stderr, "cache_child: C[%lld][%lld] = %g, want %g\n", (long long)i, (long long)j,
                (double)c[i * n + j], (double)want);
        return 0;
      }
    }
  }
  return 1;
}

static void wait_for(const char* path) {
  struct timespec ms = {0, 1000000};
  int tries;
  for (tries = 0; tries < 30000 && access(path, F_OK) != 0; ++tries) nanosleep(&ms, NULL);
}

int main(int argc, char** argv) {
  const char* names[2] = {"A", "B"};
  plaidml_context_options* options = NULL;
  plaidml_context* ctx = NULL;
  plaidml_program* program = NULL;
  plaidml_buffer* in[2] = {NULL, NULL};
  plaidml_buffer* out[1] = {NULL};
  plaidml_tensor_shape shapes[2];
  plaidml_stats s;
  int64_t n, dims[2], i, j;
  float *a, *b, *c;
  double t0, t1, t2;
  int ok;
  if (argc < 3) {
    fprintf(stderr, "usage: cache_child DIR N [GO_FILE]\n");
    return 2;
  }
  n = atoll(argv[2]);
  dims[0] = dims[1] = n;
  a = malloc(sizeof(float) * (size_t)(n * n));
  b = malloc(sizeof(float) * (size_t)(n * n));
  c = malloc(sizeof(float) * (size_t)(n * n));
  if (!a || !b || !c) return 2;
  for (i = 0; i < n; ++i) {
    for (j = 0; j < n; ++j) {
      a[i * n + j] = a_at(i, j);
      b[i * n + j] = b_at(i, j);
    }
  }
  if (argc > 3) wait_for(argv[3]);

  TRY("options", plaidml_context_options_create(&options));
  if (strcmp(argv[1], "-") != 0) {
    TRY("cache dir",
        plaidml_context_options_set_string(options, PLAIDML_CONTEXT_OPTION_CACHE_DIR, argv[1]));
  }
  TRY("context", plaidml_context_create(options, &ctx));
  plaidml_context_options_destroy(options);
  TRY("program", plaidml_program_from_tile(kMatmul, &program));
  TRY("A", plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, a,
                                           sizeof(float) * (size_t)(n * n), &in[0]));
  TRY("B", plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, b,
                                           sizeof(float) * (size_t)(n * n), &in[1]));
  shapes[0].dtype = shapes[1].dtype = PLAIDML_DTYPE_FLOAT32;
  shapes[0].rank = shapes[1].rank = 2;
  shapes[0].dims = shapes[1].dims = dims;
  t0 = now_ms();
  TRY("compile", plaidml_compile(ctx, program, 2, names, shapes));
  t1 = now_ms();
  TRY("execute", plaidml_execute(ctx, program, 2, names, in, 1, NULL, out));
  t2 = now_ms();
  TRY("read", plaidml_buffer_read(out[0], c, sizeof(float) * (size_t)(n * n)));
  ok = product_ok(c, n);

  memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  TRY("stats", plaidml_context_stats(ctx, &s));
  printf(
      "ok=%d compiles=%lld kernels_compiled=%lld disk_hits=%lld disk_misses=%lld "
      "disk_invalid=%lld disk_writes=%lld disk_write_failures=%lld plan_disk_hits=%lld "
      "plan_disk_writes=%lld compile_ms=%.3f run_ms=%.3f\n",
      ok, (long long)s.compiles, (long long)s.kernels_compiled, (long long)s.disk_hits,
      (long long)s.disk_misses, (long long)s.disk_invalid, (long long)s.disk_writes,
      (long long)s.disk_write_failures, (long long)s.plan_disk_hits,
      (long long)s.plan_disk_writes, t1 - t0, t2 - t1);
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
  free(a);
  free(b);
  free(c);
  return ok ? 0 : 1;
}
