/* Programs in files through the C ABI: plaidml_program_save / _load (a program with a weight
 * comes back computing hand-computed values), and the keyed cache entries that
 * libplaidml_onnx keeps imported models in (PLAIDML_CACHE_DIR; a miss is OK with NULL). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

/* Y[n, j] = sum_k X[n, k] * W[k, j] with W f32[8, 4] of 0.25 (32 elements: stored by digest). */
static plaidml_program* weighted_sum(void) {
  plaidml_builder* b = NULL;
  plaidml_value x, wv, y;
  plaidml_expr i, j, k, n, four;
  plaidml_contraction* c = NULL;
  plaidml_program* p = NULL;
  const char* x_dims[2] = {"N", "8"};
  const int64_t w_dims[2] = {8, 4};
  float w[32];
  int e;
  for (e = 0; e < 32; ++e) w[e] = 0.25f;
  CHECK_OK(plaidml_builder_create("sum", &b));
  CHECK_OK(plaidml_builder_add_input(b, "input:0", 2, x_dims, PLAIDML_DTYPE_FLOAT32, &x));
  CHECK_OK(plaidml_builder_add_constant(b, "W", PLAIDML_DTYPE_FLOAT32, 2, w_dims, w, sizeof w,
                                        NULL, NULL, &wv));
  CHECK_OK(plaidml_expr_index(b, "i", &i));
  CHECK_OK(plaidml_expr_index(b, "j", &j));
  CHECK_OK(plaidml_expr_index(b, "k", &k));
  CHECK_OK(plaidml_expr_dim(b, "N", &n));
  CHECK_OK(plaidml_expr_int(b, 4, &four));
  CHECK_OK(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, &c));
  {
    plaidml_expr out_idx[2], out_size[2], x_idx[2], w_idx[2];
    out_idx[0] = i; out_idx[1] = j; out_size[0] = n; out_size[1] = four;
    x_idx[0] = i; x_idx[1] = k; w_idx[0] = k; w_idx[1] = j;
    CHECK_OK(plaidml_contraction_set_output(c, 2, out_idx, out_size));
    CHECK_OK(plaidml_contraction_add_input(c, x, 2, x_idx));
    CHECK_OK(plaidml_contraction_add_input(c, wv, 2, w_idx));
  }
  CHECK_OK(plaidml_builder_add_contraction(b, c, &y));
  plaidml_contraction_destroy(c);
  CHECK_OK(plaidml_builder_add_output(b, "out/y", y));
  CHECK_OK(plaidml_builder_build(b, &p));
  plaidml_builder_destroy(b);
  return p;
}

/* X = [[1..8], [-8..-1]]: Y = [[9 x4], [-9 x4]]. */
static void check_runs(plaidml_program* p) {
  plaidml_context* ctx = NULL;
  plaidml_buffer* in = NULL;
  plaidml_buffer* out = NULL;
  const int64_t dims[2] = {2, 8};
  const float want[8] = {9, 9, 9, 9, -9, -9, -9, -9};
  float x[16], got[8];
  int e;
  for (e = 0; e < 8; ++e) {
    x[e] = (float)(e + 1);
    x[8 + e] = (float)(e - 8);
  }
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, x, sizeof x, &in));
  CHECK_OK(plaidml_execute(ctx, p, 1, NULL, &in, 1, NULL, &out));
  CHECK_OK(plaidml_buffer_read(out, got, sizeof got));
  CHECK(harness_close(got, want, 8, 1e-6f));
  plaidml_buffer_destroy(in);
  plaidml_buffer_destroy(out);
  plaidml_context_destroy(ctx);
}

static void test_save_and_load(const char* dir) {
  char path[512];
  plaidml_program* p = weighted_sum();
  plaidml_program* back = NULL;
  char* text_a = NULL;
  char* text_b = NULL;
  snprintf(path, sizeof path, "%s/sum.plaidml", dir);
  CHECK_OK(plaidml_program_save(p, path));
  CHECK_OK(plaidml_program_load(path, &back));
  CHECK_OK(plaidml_program_print(p, &text_a));
  CHECK_OK(plaidml_program_print(back, &text_b));
  CHECK(text_a && text_b && strcmp(text_a, text_b) == 0);
  CHECK(text_b && strstr(text_b, "`input:0`: f32[N, 8]") != NULL);
  plaidml_string_destroy(text_a);
  plaidml_string_destroy(text_b);
  unlink(path);  /* the loaded program's weight stays mapped */
  check_runs(back);
  plaidml_program_destroy(back);
  CHECK_ERR(plaidml_program_load(path, &back), PLAIDML_STATUS_NOT_FOUND, "cannot open program file");
  CHECK_ERR(plaidml_program_load(dir, &back), PLAIDML_STATUS_IO_ERROR, "is not a regular file");
  CHECK_ERR(plaidml_program_save(p, "/nonexistent-folder/p"), PLAIDML_STATUS_IO_ERROR,
            "cannot write /nonexistent-folder/p");
  CHECK_ERR(plaidml_program_save(NULL, path), PLAIDML_STATUS_INVALID_ARGUMENT, "program");
  CHECK_ERR(plaidml_program_save(p, NULL), PLAIDML_STATUS_INVALID_ARGUMENT, "path");
  CHECK_ERR(plaidml_program_load(NULL, &back), PLAIDML_STATUS_INVALID_ARGUMENT, "path");
  CHECK_ERR(plaidml_program_load(path, NULL), PLAIDML_STATUS_INVALID_ARGUMENT, "out_program");
  plaidml_program_destroy(p);
}

static void test_cache_entries(const char* dir) {
  plaidml_program* p = weighted_sum();
  plaidml_program* back = (plaidml_program*)1;
  setenv("PLAIDML_CACHE_DIR", dir, 1);
  CHECK_OK(plaidml_program_cache_load("model a", &back));
  CHECK(back == NULL);  /* a miss */
  CHECK_OK(plaidml_program_cache_store("model a", p));
  CHECK_OK(plaidml_program_cache_load("model b", &back));
  CHECK(back == NULL);
  CHECK_OK(plaidml_program_cache_load("model a", &back));
  CHECK(back != NULL);
  if (back) check_runs(back);
  plaidml_program_destroy(back);
  /* The cache off: nothing stored, nothing found. */
  setenv("PLAIDML_CACHE_DIR", "", 1);
  CHECK_OK(plaidml_program_cache_store("model a", p));
  back = (plaidml_program*)1;
  CHECK_OK(plaidml_program_cache_load("model a", &back));
  CHECK(back == NULL);
  CHECK_ERR(plaidml_program_cache_store(NULL, p), PLAIDML_STATUS_INVALID_ARGUMENT, "key");
  CHECK_ERR(plaidml_program_cache_load("k", NULL), PLAIDML_STATUS_INVALID_ARGUMENT, "out_program");
  unsetenv("PLAIDML_CACHE_DIR");
  plaidml_program_destroy(p);
}

int main(void) {
  char dir[] = "/tmp/plaidml_capi_program_XXXXXX";
  char cmd[600];
  if (mkdtemp(dir) == NULL) return 1;
  test_save_and_load(dir);
  test_cache_entries(dir);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed != 0;
}
