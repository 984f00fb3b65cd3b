/* The disk kernel cache through the C ABI: PLAIDML_CONTEXT_OPTION_CACHE_DIR set to a folder (a
 * second context then generates no code), set to "" (nothing is written, whatever
 * PLAIDML_CACHE_DIR says), set wrongly, and pointing where no folder can be made (a warning, and
 * the program still runs); the statistics' new fields and plaidml_context_cache_dir. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>

#include "harness.h"

static const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "}\n";

/* A = [[1 2 3] [4 5 6]], B = [[7 8] [9 10] [11 12]]: C = [[58 64] [139 154]]. */
static const float kA[6] = {1, 2, 3, 4, 5, 6};
static const float kB[6] = {7, 8, 9, 10, 11, 12};
static const float kC[4] = {58, 64, 139, 154};
static const int64_t kADims[2] = {2, 3};
static const int64_t kBDims[2] = {3, 2};
static const char* kNames[2] = {"A", "B"};

struct Warnings {
  int cache_warnings;
  char last[1024];
};

static void on_log(void* user_data, plaidml_log_level level, const char* message) {
  struct Warnings* w = (struct Warnings*)user_data;
  if (level >= PLAIDML_LOG_WARN && strstr(message, "kernel cache") != NULL) {
    w->cache_warnings++;
    strncpy(w->last, message, sizeof(w->last) - 1);
  }
}

/* Entries (not "." or "..") in dir; -1 when it cannot be opened (it does not exist). */
static int count_entries(const char* dir) {
  DIR* d = opendir(dir);
  struct dirent* e;
  int n = 0;
  if (d == NULL) return -1;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  }
  closedir(d);
  return n;
}

static void remove_tree(const char* dir) {
  char cmd[1200];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* A context whose CACHE_DIR option is dir (NULL: the option left unset). */
static plaidml_context* context_with(const char* dir) {
  plaidml_context_options* opts = NULL;
  plaidml_context* ctx = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  if (dir != NULL) {
    CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_CACHE_DIR, dir));
  }
  CHECK_OK(plaidml_context_create(opts, &ctx));
  plaidml_context_options_destroy(opts);
  return ctx;
}

/* Runs the matmul, checks the product and returns the context's statistics. */
static plaidml_stats run_matmul(plaidml_context* ctx) {
  plaidml_program* p = NULL;
  plaidml_buffer* in[2] = {NULL, NULL};
  plaidml_buffer* out[1] = {NULL};
  plaidml_stats stats;
  float c[4] = {0};
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  CHECK_OK(plaidml_program_from_tile(kMatmul, &p));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kADims, kA, sizeof(kA),
                                           &in[0]));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kBDims, kB, sizeof(kB),
                                           &in[1]));
  CHECK_OK(plaidml_execute(ctx, p, 2, kNames, in, 1, NULL, out));
  if (out[0] != NULL) {
    CHECK_OK(plaidml_buffer_read(out[0], c, sizeof(c)));
    CHECK(harness_close(c, kC, 4, 0.0f));
  }
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  plaidml_program_destroy(p);
  return stats;
}

static void test_folder(const char* root) {
  char dir[1100], kernels[1200];
  const char* got = NULL;
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  snprintf(dir, sizeof(dir), "%s/folder", root);
  snprintf(kernels, sizeof(kernels), "%s/kernels", dir);
  ctx = context_with(dir);
  CHECK_OK(plaidml_context_cache_dir(ctx, &got));
  CHECK(got != NULL && strcmp(got, dir) == 0);
  CHECK_ERR(plaidml_context_cache_dir(ctx, NULL), PLAIDML_STATUS_INVALID_ARGUMENT,
            "'out_dir' is NULL");
  s = run_matmul(ctx);
  CHECK(s.compiles == 1 && s.kernels_compiled >= 1);
  CHECK(s.disk_misses == 1 && s.disk_writes == 1 && s.disk_hits == 0);
  CHECK(count_entries(kernels) == 1);
  plaidml_context_destroy(ctx);

  /* A second context (as a second process would) reads the entry and generates nothing. */
  ctx = context_with(dir);
  s = run_matmul(ctx);
  CHECK(s.compiles == 1 && s.kernels_compiled == 0);
  CHECK(s.disk_hits == 1 && s.disk_writes == 0 && s.disk_invalid == 0);
  plaidml_context_destroy(ctx);
}

static void test_empty_disables(const char* root) {
  char env_dir[1100];
  const char* got = NULL;
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  snprintf(env_dir, sizeof(env_dir), "%s/from-env", root);
  setenv("PLAIDML_CACHE_DIR", env_dir, 1);
  ctx = context_with("");
  CHECK_OK(plaidml_context_cache_dir(ctx, &got));
  CHECK(got != NULL && strcmp(got, "") == 0);
  s = run_matmul(ctx);
  CHECK(s.kernels_compiled >= 1 && s.disk_writes == 0 && s.disk_misses == 0);
  CHECK(count_entries(env_dir) == -1); /* never created */
  plaidml_context_destroy(ctx);

  /* Unset, the option defers to PLAIDML_CACHE_DIR; its empty value disables the cache too. */
  ctx = context_with(NULL);
  CHECK_OK(plaidml_context_cache_dir(ctx, &got));
  CHECK(got != NULL && strcmp(got, env_dir) == 0);
  plaidml_context_destroy(ctx);
  setenv("PLAIDML_CACHE_DIR", "", 1);
  ctx = context_with(NULL);
  CHECK_OK(plaidml_context_cache_dir(ctx, &got));
  CHECK(got != NULL && strcmp(got, "") == 0);
  plaidml_context_destroy(ctx);
  unsetenv("PLAIDML_CACHE_DIR");
}

static void test_bad_values(void) {
  plaidml_context_options* opts = NULL;
  const char* got = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_ERR(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_CACHE_DIR, 1),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_context_options_set_int: PLAIDML_CONTEXT_OPTION_CACHE_DIR takes a string: "
            "use plaidml_context_options_set_string");
  CHECK_ERR(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_CACHE_DIR, NULL),
            PLAIDML_STATUS_INVALID_ARGUMENT, "'value' is NULL");
  plaidml_context_options_destroy(opts);
  CHECK_ERR(plaidml_context_cache_dir(NULL, &got), PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_context_cache_dir: argument 'context' is NULL");
}

static void test_unwritable(const char* root) {
  char file[1100], dir[1200];
  struct Warnings w;
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  FILE* f;
  memset(&w, 0, sizeof(w));
  /* No folder can exist below a regular file (ENOTDIR), whoever runs the test. */
  snprintf(file, sizeof(file), "%s/a-file", root);
  snprintf(dir, sizeof(dir), "%s/cache", file);
  f = fopen(file, "w");
  CHECK(f != NULL);
  if (f != NULL) fclose(f);
  CHECK_OK(plaidml_set_log_callback(on_log, &w));
  ctx = context_with(dir);
  CHECK(ctx != NULL);
  if (ctx == NULL) return;
  s = run_matmul(ctx); /* the program runs all the same */
  CHECK(s.kernels_compiled >= 1 && s.disk_writes == 0 && s.disk_write_failures == 1);
  CHECK(w.cache_warnings == 1);
  CHECK(strstr(w.last, "cannot create the folder") != NULL);
  CHECK(strstr(w.last, "running without saving compiled kernels there") != NULL);
  CHECK_OK(plaidml_set_log_callback(NULL, NULL));
  plaidml_context_destroy(ctx);
}

static void test_old_stats_struct(const char* root) {
  char dir[1100];
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  snprintf(dir, sizeof(dir), "%s/old-struct", root);
  ctx = context_with(dir);
  run_matmul(ctx);
  /* A caller built before the kernel-cache fields: they are not written. */
  memset(&s, 0, sizeof(s));
  s.struct_size = offsetof(plaidml_stats, kernels_compiled);
  s.kernels_compiled = -7;
  s.disk_write_failures = -7;
  CHECK_OK(plaidml_context_stats(ctx, &s));
  CHECK(s.compiles == 1 && s.kernels_compiled == -7 && s.disk_write_failures == -7);
  plaidml_context_destroy(ctx);
}

int main(void) {
  char root[] = "/tmp/plaidml_capi_cache_XXXXXX";
  if (mkdtemp(root) == NULL) {
    fprintf(stderr, "mkdtemp failed\n");
    return 1;
  }
  test_folder(root);
  test_empty_disables(root);
  test_bad_values();
  test_unwritable(root);
  test_old_stats_struct(root);
  remove_tree(root);
  return harness_finish();
}
