/* The disk kernel cache through the C ABI: PLAIDML_CONTEXT_OPTION_CACHE_DIR set to a folder (a
 * second context then generates no code), set to "" (nothing is written, whatever
 * PLAIDML_CACHE_DIR says), set wrongly, and pointing where no folder can be made (a warning, and
 * the program still runs); the statistics' new fields and plaidml_context_cache_dir. What the
 * cache refuses: a folder others can write (or below one), a folder of another user, and an
 * entry that is a link to /dev/zero or a FIFO (each a warning, and the right numbers). The
 * kernel library: a program at another number of rows takes its kernel from it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Y = relu(X) and its row sums S, over n rows of 64 columns: one kernel with all of n in its
 * parallel loop. X[r][c] = c - 32 + r, so S[r] sums max(0, c - 32 + r) over c. */
static const char* kRows =
    "function (X[N, C]) -> (Y, S) {\n"
    "  Y = relu(X);\n"
    "  S[n : N] = +(Y[n, c]);\n"
    "}\n";

static plaidml_stats run_rows(plaidml_context* ctx, int64_t rows) {
  plaidml_program* p = NULL;
  plaidml_buffer* in[1] = {NULL};
  plaidml_buffer* out[2] = {NULL, NULL};
  const char* names[1] = {"X"};
  int64_t dims[2] = {rows, 64};
  float x[4 * 64], sums[4] = {0};
  plaidml_stats stats;
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  for (int64_t i = 0; i < rows * 64; ++i) x[i] = (float)(i % 64 - 32 + i / 64);
  CHECK_OK(plaidml_program_from_tile(kRows, &p));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, x,
                                           (size_t)rows * 64 * sizeof(float), &in[0]));
  CHECK_OK(plaidml_execute(ctx, p, 1, names, in, 2, NULL, out));
  if (out[1] != NULL) {
    CHECK_OK(plaidml_buffer_read(out[1], sums, (size_t)rows * sizeof(float)));
    for (int64_t r = 0; r < rows; ++r) {
      float want = 0;
      for (int64_t c = 0; c < 64; ++c) want += (float)(c - 32 + r > 0 ? c - 32 + r : 0);
      CHECK(sums[r] == want);
    }
  }
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(out[1]);
  plaidml_buffer_destroy(in[0]);
  plaidml_program_destroy(p);
  return stats;
}

static void test_kernel_library(void) {
  plaidml_context* ctx = context_with("");
  plaidml_stats two = run_rows(ctx, 2);
  plaidml_stats four = run_rows(ctx, 4);
  CHECK(two.kernels_compiled >= 1 && two.kernel_library_hits == 0);
  CHECK(four.compiles == 2 && four.kernels_compiled == two.kernels_compiled);
  CHECK(four.kernel_library_hits == two.kernels_compiled);
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

/* Runs the matmul in a context on dir and checks that the folder was refused: cache_dir "",
 * nothing read or written, one warning that holds "the folder <bad> <why>". */
static void check_refused(const char* dir, const char* bad, const char* why) {
  char expected[1400];
  struct Warnings w;
  const char* got = NULL;
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  memset(&w, 0, sizeof(w));
  CHECK_OK(plaidml_set_log_callback(on_log, &w));
  ctx = context_with(dir);
  CHECK_OK(plaidml_context_cache_dir(ctx, &got));
  CHECK(got != NULL && strcmp(got, "") == 0); /* the disk cache is off */
  s = run_matmul(ctx);                          /* and the numbers are right */
  CHECK(s.kernels_compiled >= 1 && s.disk_misses == 0 && s.disk_writes == 0);
  CHECK(s.disk_write_failures == 0 && s.plan_disk_writes == 0);
  CHECK(w.cache_warnings == 1);
  snprintf(expected, sizeof(expected), "refused, running without the disk cache: the folder %s %s",
           bad, why);
  CHECK(strstr(w.last, expected) != NULL);
  CHECK(strstr(w.last, "each folder on its path must be yours or root's and writable by no one "
                       "else") != NULL);
  CHECK_OK(plaidml_set_log_callback(NULL, NULL));
  plaidml_context_destroy(ctx);
}

static void test_refused_folders(const char* root) {
  char open_dir[1100], parent[1100], below[1200], theirs[1100];
  snprintf(open_dir, sizeof(open_dir), "%s/open", root);
  CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
  check_refused(open_dir, open_dir, "is writable by others (mode 0777)");
  CHECK(count_entries(open_dir) == 0); /* no kernels/ made in it */

  /* A cache folder still to be made below an open one: refused before anything is made. */
  snprintf(parent, sizeof(parent), "%s/open-parent", root);
  snprintf(below, sizeof(below), "%s/cache", parent);
  CHECK(mkdir(parent, 0700) == 0 && chmod(parent, 0757) == 0);
  check_refused(below, parent, "is writable by others (mode 0757)");
  CHECK(count_entries(below) == -1);

  if (geteuid() != 0) {
    printf("not root: the folder of another user is not tested\n");
    return;
  }
  snprintf(theirs, sizeof(theirs), "%s/theirs", root);
  CHECK(mkdir(theirs, 0755) == 0 && chown(theirs, 65534, 65534) == 0);
  check_refused(theirs, theirs, "belongs to another user (uid 65534)");
}

/* The first entry's path in dir; 0 when there is none. */
static int first_entry(const char* dir, char* out, size_t size) {
  DIR* d = opendir(dir);
  struct dirent* e;
  int found = 0;
  if (d == NULL) return 0;
  while (!found && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    found = snprintf(out, size, "%s/%s", dir, e->d_name) < (int)size;
  }
  closedir(d);
  return found;
}

/* The kernels' entry replaced by a symbolic link to /dev/zero (it ran 55 s to 16.8 GB), then
 * by a FIFO (it hung): each is a quick miss with one warning, the kernels are generated again,
 * the numbers are right, and a regular file is back in its place. */
static void test_entry_not_regular(const char* root) {
  static const char* kReasons[2] = {"it is a symbolic link, not a regular file",
                                    "it is a FIFO, not a regular file"};
  char dir[1100], kernels[1200], entry[1400];
  struct Warnings w;
  struct stat st;
  plaidml_context* ctx = NULL;
  plaidml_stats s;
  int kind;
  snprintf(dir, sizeof(dir), "%s/entries", root);
  snprintf(kernels, sizeof(kernels), "%s/kernels", dir);
  ctx = context_with(dir);
  run_matmul(ctx);
  plaidml_context_destroy(ctx);
  CHECK(first_entry(kernels, entry, sizeof(entry)));
  for (kind = 0; kind < 2; ++kind) {
    CHECK(unlink(entry) == 0);
    CHECK(kind == 0 ? symlink("/dev/zero", entry) == 0 : mkfifo(entry, 0600) == 0);
    memset(&w, 0, sizeof(w));
    CHECK_OK(plaidml_set_log_callback(on_log, &w));
    ctx = context_with(dir);
    alarm(20); /* should the fix regress, SIGALRM ends this test instead of a hang */
    s = run_matmul(ctx);
    alarm(0);
    CHECK(s.disk_invalid == 1 && s.kernels_compiled >= 1 && s.disk_writes == 1);
    CHECK(w.cache_warnings == 1);
    CHECK(strstr(w.last, "kernel cache: ignoring the invalid entry ") != NULL);
    CHECK(strstr(w.last, entry) != NULL && strstr(w.last, kReasons[kind]) != NULL);
    CHECK(lstat(entry, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK_OK(plaidml_set_log_callback(NULL, NULL));
    plaidml_context_destroy(ctx);
  }
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
  test_refused_folders(root);
  test_entry_not_regular(root);
  test_kernel_library();
  remove_tree(root);
  return harness_finish();
}
