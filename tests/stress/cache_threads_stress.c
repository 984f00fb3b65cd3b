/* The shared-cache stress test (issue 18): 8 threads of one context compile and run two
 * shape-polymorphic programs at overlapping shapes (some every thread uses, some a pair of
 * threads shares, some one thread's own), on input buffers the threads share and on their own,
 * while a second process (this program with --child) compiles and runs the same programs at the
 * same shapes, in the opposite order, into the same disk-cache folder. Every result is checked
 * against a plain loop over the same small-integer inputs (exact in f32). Afterwards a fresh
 * context compiles every shape again: all of it must come from the folder (no code generated,
 * every plan read back), and the numbers must still be right.
 *
 * Run under ThreadSanitizer by scripts/tsan.sh (label "concurrency"), and under ASan in the
 * sanitizer pass. Prints one line per phase and "stress: ok" or the failures; exit status 0
 * only when everything held. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <plaidml/plaidml.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

enum { kThreads = 8, kRounds = 3, kMaxDims = 3, kMaxJobs = 64 };

static const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "}\n";

/* An elementwise chain with a broadcast: O = 2 * relu(3 X + Y - 4) - X. */
static const char* kChain =
    "function (X[R, C], Y[C]) -> (O) {\n"
    "  T = X * 3 + Y;\n"
    "  U = relu(T - 4);\n"
    "  O = U * 2 - X;\n"
    "}\n";

enum { kProgMatmul = 0, kProgChain = 1 };

/* One (program, shape) pair: the matmul's dims are M, K, N; the chain's R, C. */
typedef struct {
  int program;
  int64_t d[kMaxDims];
} Job;

/* Used by every thread (the parent makes their inputs once and the threads share them). */
static const Job kSharedJobs[] = {
    {kProgMatmul, {8, 8, 8}}, {kProgMatmul, {16, 5, 12}}, {kProgMatmul, {3, 17, 9}},
    {kProgChain, {8, 16, 0}}, {kProgChain, {33, 7, 0}},   {kProgChain, {1, 64, 0}},
};
enum { kSharedCount = sizeof(kSharedJobs) / sizeof(kSharedJobs[0]) };

/* Thread t's own shapes (index 0, 1) and the one it shares with thread t ^ 1 (index 2). */
static Job own_job(int t, int which) {
  Job j;
  memset(&j, 0, sizeof(j));
  if (which == 0) {
    j.program = kProgMatmul;
    j.d[0] = 4 + t, j.d[1] = 6, j.d[2] = 10 + t;
  } else if (which == 1) {
    j.program = kProgChain;
    j.d[0] = 5 + t, j.d[1] = 9 + 2 * t;
  } else {
    j.program = kProgMatmul;
    j.d[0] = 2 + t / 2, j.d[1] = 11, j.d[2] = 3;
  }
  return j;
}

/* Every distinct job: the shared ones, then each thread's own, then one per pair. */
static int all_jobs(Job* out) {
  int n = 0, t;
  for (t = 0; t < kSharedCount; ++t) out[n++] = kSharedJobs[t];
  for (t = 0; t < kThreads; ++t) {
    out[n++] = own_job(t, 0);
    out[n++] = own_job(t, 1);
  }
  for (t = 0; t < kThreads; t += 2) out[n++] = own_job(t, 2);
  return n;
}

/* ---- inputs and expected values: small integers, so every sum is exact in f32 ---- */

static float a_at(int64_t i, int64_t k) { return (float)((i * 3 + k) % 5 - 2); }
static float b_at(int64_t k, int64_t j) { return (float)((k + 2 * j) % 7 - 3); }
static float x_at(int64_t r, int64_t c) { return (float)((r * 7 + c * 3) % 9 - 4); }
static float y_at(int64_t c) { return (float)(c % 5 - 2); }

static float matmul_want(const Job* j, int64_t i, int64_t n) {
  float sum = 0;
  int64_t k;
  for (k = 0; k < j->d[1]; ++k) sum += a_at(i, k) * b_at(k, n);
  return sum;
}

static float chain_want(int64_t r, int64_t c) {
  float t = x_at(r, c) * 3 + y_at(c) - 4;
  return (t > 0 ? t : 0) * 2 - x_at(r, c);
}

/* The job's inputs: shapes, and host data when data is not NULL (then data[i] is malloc'd). */
typedef struct {
  int count;
  int64_t dims[2][2];
  size_t rank[2];
  float* data[2];
} Inputs;

static void job_shapes(const Job* j, Inputs* in) {
  memset(in, 0, sizeof(*in));
  in->count = 2;
  in->rank[0] = 2;
  if (j->program == kProgMatmul) {
    in->rank[1] = 2;
    in->dims[0][0] = j->d[0], in->dims[0][1] = j->d[1];
    in->dims[1][0] = j->d[1], in->dims[1][1] = j->d[2];
  } else {
    in->rank[1] = 1;
    in->dims[0][0] = j->d[0], in->dims[0][1] = j->d[1];
    in->dims[1][0] = j->d[1];
  }
}

static int64_t elements(const int64_t* dims, size_t rank) {
  int64_t n = 1;
  size_t i;
  for (i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

static int job_fill(const Job* j, Inputs* in) {
  int64_t r, c;
  job_shapes(j, in);
  in->data[0] = malloc(sizeof(float) * (size_t)elements(in->dims[0], in->rank[0]));
  in->data[1] = malloc(sizeof(float) * (size_t)elements(in->dims[1], in->rank[1]));
  if (!in->data[0] || !in->data[1]) return 0;
  for (r = 0; r < in->dims[0][0]; ++r) {
    for (c = 0; c < in->dims[0][1]; ++c) {
      in->data[0][r * in->dims[0][1] + c] = j->program == kProgMatmul ? a_at(r, c) : x_at(r, c);
    }
  }
  if (j->program == kProgMatmul) {
    for (r = 0; r < in->dims[1][0]; ++r) {
      for (c = 0; c < in->dims[1][1]; ++c) in->data[1][r * in->dims[1][1] + c] = b_at(r, c);
    }
  } else {
    for (c = 0; c < in->dims[1][0]; ++c) in->data[1][c] = y_at(c);
  }
  return 1;
}

static void inputs_free(Inputs* in) {
  free(in->data[0]);
  free(in->data[1]);
}

/* ---- reporting: each thread counts its own failures; messages go to stderr whole ---- */

static void report(const char* who, const Job* j, const char* what) {
  fprintf(stderr, "stress: %s: %s at (%lld, %lld, %lld): %s\n", who,
          j->program == kProgMatmul ? "matmul" : "chain", (long long)j->d[0], (long long)j->d[1],
          (long long)j->d[2], what);
}

static int call_ok(const char* who, const Job* j, const char* call, plaidml_status s) {
  char line[1200];
  if (s == PLAIDML_STATUS_OK) return 1;
  snprintf(line, sizeof(line), "%s: %s: %s", call, plaidml_status_name(s),
           plaidml_last_error_message());
  report(who, j, line);
  return 0;
}

/* Compares the output with the plain loop; reports the first wrong element. */
static int output_ok(const char* who, const Job* j, const float* got) {
  int64_t rows = j->d[0], cols = j->program == kProgMatmul ? j->d[2] : j->d[1], r, c;
  char line[200];
  for (r = 0; r < rows; ++r) {
    for (c = 0; c < cols; ++c) {
      float want = j->program == kProgMatmul ? matmul_want(j, r, c) : chain_want(r, c);
      if (got[r * cols + c] != want) {
        snprintf(line, sizeof(line), "element [%lld][%lld] is %g, want %g", (long long)r,
                 (long long)c, (double)got[r * cols + c], (double)want);
        report(who, j, line);
        return 0;
      }
    }
  }
  return 1;
}

/* ---- compile and run one job ---- */

static const char* kInputNames[2][2] = {{"A", "B"}, {"X", "Y"}};

static int compile_job(const char* who, plaidml_context* ctx, plaidml_program* const* programs,
                       const Job* j) {
  Inputs in;
  plaidml_tensor_shape shapes[2];
  int i;
  job_shapes(j, &in);
  for (i = 0; i < 2; ++i) {
    shapes[i].dtype = PLAIDML_DTYPE_FLOAT32;
    shapes[i].rank = in.rank[i];
    shapes[i].dims = in.dims[i];
  }
  return call_ok(who, j, "plaidml_compile",
                 plaidml_compile(ctx, programs[j->program], 2, kInputNames[j->program], shapes));
}

/* Uploads the job's inputs into buffers[0..1]. */
static int upload_job(const char* who, plaidml_context* ctx, const Job* j,
                      plaidml_buffer** buffers) {
  Inputs in;
  int i, ok = job_fill(j, &in);
  if (!ok) report(who, j, "out of host memory");
  for (i = 0; ok && i < 2; ++i) {
    size_t bytes = sizeof(float) * (size_t)elements(in.dims[i], in.rank[i]);
    ok = call_ok(who, j, "plaidml_buffer_create_from_host",
                 plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, in.rank[i], in.dims[i],
                                                 in.data[i], bytes, &buffers[i]));
  }
  inputs_free(&in);
  return ok;
}

/* Runs the job on the given inputs (or, when shared is NULL, on inputs of its own) and checks the
 * output. */
static int run_job(const char* who, plaidml_context* ctx, plaidml_program* const* programs,
                   const Job* j, plaidml_buffer* const* shared) {
  plaidml_buffer* own[2] = {NULL, NULL};
  plaidml_buffer* out[1] = {NULL};
  int64_t rows = j->d[0], cols = j->program == kProgMatmul ? j->d[2] : j->d[1];
  size_t bytes = sizeof(float) * (size_t)(rows * cols);
  float* got = malloc(bytes);
  int ok = got != NULL && (shared != NULL || upload_job(who, ctx, j, own));
  if (ok) {
    ok = call_ok(who, j, "plaidml_execute",
                 plaidml_execute(ctx, programs[j->program], 2, kInputNames[j->program],
                                 shared ? shared : own, 1, NULL, out));
  }
  if (ok) ok = call_ok(who, j, "plaidml_buffer_read", plaidml_buffer_read(out[0], got, bytes));
  if (ok) ok = output_ok(who, j, got);
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(own[0]);
  plaidml_buffer_destroy(own[1]);
  free(got);
  return ok;
}

/* ---- contexts and statistics ---- */

/* Every context of the test has the same number of CPU threads: the schedule, and so the plan and
 * kernel entries, depend on it, and the processes must write the same entries. */
static plaidml_context* open_context(const char* cache_dir) {
  plaidml_context_options* options = NULL;
  plaidml_context* ctx = NULL;
  plaidml_status s = plaidml_context_options_create(&options);
  if (s == PLAIDML_STATUS_OK) {
    s = plaidml_context_options_set_string(options, PLAIDML_CONTEXT_OPTION_CACHE_DIR, cache_dir);
  }
  if (s == PLAIDML_STATUS_OK) {
    s = plaidml_context_options_set_int(options, PLAIDML_CONTEXT_OPTION_NUM_THREADS, 2);
  }
  if (s == PLAIDML_STATUS_OK) s = plaidml_context_create(options, &ctx);
  plaidml_context_options_destroy(options);
  if (s != PLAIDML_STATUS_OK) {
    fprintf(stderr, "stress: context: %s: %s\n", plaidml_status_name(s),
            plaidml_last_error_message());
  }
  return ctx;
}

static int open_programs(plaidml_program** programs) {
  plaidml_status s = plaidml_program_from_tile(kMatmul, &programs[kProgMatmul]);
  if (s == PLAIDML_STATUS_OK) s = plaidml_program_from_tile(kChain, &programs[kProgChain]);
  if (s != PLAIDML_STATUS_OK) {
    fprintf(stderr, "stress: program: %s\n", plaidml_last_error_message());
  }
  return s == PLAIDML_STATUS_OK;
}

static plaidml_stats stats_of(plaidml_context* ctx) {
  plaidml_stats s;
  memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  if (plaidml_context_stats(ctx, &s) != PLAIDML_STATUS_OK) s.compiles = -1;
  return s;
}

static void print_stats(const char* who, const plaidml_stats* s) {
  printf(
      "%s: compiles=%lld cache_hits=%lld kernels_compiled=%lld disk_hits=%lld "
      "disk_invalid=%lld disk_writes=%lld disk_write_failures=%lld plan_disk_hits=%lld "
      "plan_disk_writes=%lld\n",
      who, (long long)s->compiles, (long long)s->cache_hits, (long long)s->kernels_compiled,
      (long long)s->disk_hits, (long long)s->disk_invalid, (long long)s->disk_writes,
      (long long)s->disk_write_failures, (long long)s->plan_disk_hits,
      (long long)s->plan_disk_writes);
  fflush(stdout);
}

/* A named condition on the statistics or the folder; prints it when it fails. */
static int expect(int cond, const char* what) {
  if (!cond) fprintf(stderr, "stress: FAILED: %s\n", what);
  return cond;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wait_for_file(const char* path) {
  struct timespec ms = {0, 1000000};
  int tries;
  for (tries = 0; tries < 60000 && access(path, F_OK) != 0; ++tries) nanosleep(&ms, NULL);
}

/* ---- the child process: every job once, last to first, on one context ---- */

static int child_main(const char* cache_dir, const char* go_file) {
  plaidml_program* programs[2] = {NULL, NULL};
  plaidml_context* ctx = open_context(cache_dir);
  Job jobs[kMaxJobs];
  plaidml_stats s;
  int n = all_jobs(jobs), i, ok = ctx != NULL && open_programs(programs);
  wait_for_file(go_file);
  for (i = n - 1; ok && i >= 0; --i) {
    ok = compile_job("child", ctx, programs, &jobs[i]) &&
         run_job("child", ctx, programs, &jobs[i], NULL);
  }
  s = stats_of(ctx);
  print_stats("child", &s);
  ok = ok && expect(s.compiles == n, "the child compiled each of its shapes once") &&
       expect(s.disk_invalid == 0, "the child found no damaged entry") &&
       expect(s.disk_write_failures == 0, "every write of the child succeeded");
  plaidml_program_destroy(programs[0]);
  plaidml_program_destroy(programs[1]);
  plaidml_context_destroy(ctx);
  return ok ? 0 : 1;
}

/* ---- the parent's threads ---- */

typedef struct {
  int index;
  plaidml_context* ctx;
  plaidml_program* const* programs;
  plaidml_buffer* (*shared)[2]; /* inputs of kSharedJobs[i] */
  pthread_barrier_t* start;
  int calls;    /* compiles and executes made */
  int failures; /* jobs that failed */
} Worker;

/* Thread 0 also turns the context's profiler on for round 1 and reads its summary while the
 * others run (the profiler's calls are thread-safe, and so is recording from many threads). */
static int profile_step(plaidml_context* ctx, int round) {
  char* text = NULL;
  plaidml_status s = plaidml_context_set_profiling(ctx, round == 1);
  if (s == PLAIDML_STATUS_OK && round == 2) {
    s = plaidml_context_profile_summary(ctx, 5, &text);
    if (s == PLAIDML_STATUS_OK && strstr(text, "kernel") == NULL) s = PLAIDML_STATUS_INTERNAL;
    plaidml_string_destroy(text);
  }
  if (s != PLAIDML_STATUS_OK) fprintf(stderr, "stress: profiling: %s\n", plaidml_status_name(s));
  return s == PLAIDML_STATUS_OK;
}

/* Thread 1 also lists the devices (which loads the plugin modules, once per context) and selects
 * the CPU again, while the others run. */
static int device_step(plaidml_context* ctx) {
  size_t count = 0, i;
  const char* id = NULL;
  plaidml_status s = plaidml_device_count(ctx, &count);
  for (i = 0; s == PLAIDML_STATUS_OK && i < count; ++i) s = plaidml_device_id(ctx, i, &id);
  if (s == PLAIDML_STATUS_OK) s = plaidml_context_select_device(ctx, "cpu:0");
  if (s == PLAIDML_STATUS_OK) s = plaidml_context_device(ctx, &id);
  if (s == PLAIDML_STATUS_OK && strcmp(id, "cpu:0") != 0) s = PLAIDML_STATUS_INTERNAL;
  if (s != PLAIDML_STATUS_OK) fprintf(stderr, "stress: devices: %s\n", plaidml_status_name(s));
  return s == PLAIDML_STATUS_OK;
}

/* Round r visits the thread's jobs from a different starting point, so that threads meet on the
 * shared shapes in different orders; the even threads compile before their first run. Each job
 * also reads the context's statistics, which the compiles of other threads are updating. */
static void* worker_main(void* arg) {
  Worker* w = (Worker*)arg;
  char who[32];
  int r, i, n = kSharedCount + 3;
  snprintf(who, sizeof(who), "thread %d", w->index);
  pthread_barrier_wait(w->start);
  for (r = 0; r < kRounds; ++r) {
    if (w->index == 0 && !profile_step(w->ctx, r)) w->failures++;
    if (w->index == 1 && !device_step(w->ctx)) w->failures++;
    for (i = 0; i < n; ++i) {
      int k = (i + w->index + r) % n;
      Job j = k < kSharedCount ? kSharedJobs[k] : own_job(w->index, k - kSharedCount);
      int ok = 1;
      if (r == 0 && w->index % 2 == 0) {
        ok = compile_job(who, w->ctx, w->programs, &j);
        w->calls++;
      }
      ok = ok && run_job(who, w->ctx, w->programs, &j, k < kSharedCount ? w->shared[k] : NULL);
      w->calls++;
      if (!ok || stats_of(w->ctx).compiles < 1) w->failures++;
    }
  }
  return NULL;
}

/* Two more threads, each with a context of its own on the same folder, run the shared shapes
 * once: contexts of one process share only what is process-wide (LLVM, the log, the folder). */
enum { kSideThreads = 2 };

typedef struct {
  int index;
  const char* cache_dir;
  plaidml_program* const* programs;
  pthread_barrier_t* start;
  int failures;
} Side;

static void* side_main(void* arg) {
  Side* side = (Side*)arg;
  plaidml_context* ctx = open_context(side->cache_dir);
  plaidml_stats s;
  char who[32];
  int i;
  snprintf(who, sizeof(who), "side context %d", side->index);
  pthread_barrier_wait(side->start);
  for (i = 0; ctx && i < kSharedCount; ++i) {
    const Job* j = &kSharedJobs[(i + 3 * side->index) % kSharedCount];
    if (!compile_job(who, ctx, side->programs, j) || !run_job(who, ctx, side->programs, j, NULL)) {
      side->failures++;
    }
  }
  if (!ctx) {
    side->failures++;
    return NULL;
  }
  s = stats_of(ctx);
  side->failures +=
      !expect(s.compiles == kSharedCount && s.disk_invalid == 0 && s.disk_write_failures == 0,
              "a side context compiled each shape once, all entries whole");
  plaidml_context_destroy(ctx);
  return NULL;
}

/* ---- the folder ---- */

/* A path: folder a, then b. A path too long to fit is "" (every use of it then fails). */
typedef struct {
  char s[4096];
} Path;

static Path path_join(const char* a, const char* b) {
  Path p;
  int n = snprintf(p.s, sizeof(p.s), "%s/%s", a, b);
  if (n < 0 || n >= (int)sizeof(p.s)) p.s[0] = 0;
  return p;
}

/* Counts DIR's entries; each must be a regular file named by 64 hex digits (a whole entry,
 * renamed into place: no temporary file may be left). -1 when the folder cannot be read. */
static int count_entries(const char* dir) {
  DIR* d = opendir(dir);
  struct dirent* e;
  struct stat st;
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    Path path = path_join(dir, e->d_name);
    if (strlen(e->d_name) != 64 || strspn(e->d_name, "0123456789abcdef") != 64 ||
        lstat(path.s, &st) != 0 || !S_ISREG(st.st_mode)) {
      fprintf(stderr, "stress: FAILED: %s/%s is not a cache entry\n", dir, e->d_name);
      n = -1000000;
    }
    ++n;
  }
  closedir(d);
  return n;
}

/* Removes path and everything below it. */
static void remove_tree(const char* path) {
  DIR* d = opendir(path);
  struct dirent* e;
  if (!d) {
    unlink(path);
    return;
  }
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    remove_tree(path_join(path, e->d_name).s);
  }
  closedir(d);
  rmdir(path);
}

/* ---- the parent ---- */

static pid_t spawn_child(const char* self, const char* cache_dir, const char* go_file,
                         const char* out_file) {
  char* argv[5];
  posix_spawn_file_actions_t actions;
  pid_t pid = -1;
  argv[0] = (char*)self;
  argv[1] = (char*)"--child";
  argv[2] = (char*)cache_dir;
  argv[3] = (char*)go_file;
  argv[4] = NULL;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (posix_spawn(&pid, self, &actions, NULL, argv, environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

static int child_finished_ok(pid_t pid, const char* out_file) {
  int status = 0;
  char line[1024] = "";
  FILE* f;
  if (waitpid(pid, &status, 0) != pid) return expect(0, "waiting for the child");
  f = fopen(out_file, "r");
  if (f) {
    if (!fgets(line, sizeof(line), f)) line[0] = 0;
    fclose(f);
  }
  printf("%s", line);
  return expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "the child process finished with every result right");
}

/* The shared jobs' inputs, made once: threads read them at the same time. */
static int upload_shared(plaidml_context* ctx, plaidml_buffer* (*shared)[2]) {
  int i, ok = 1;
  for (i = 0; ok && i < kSharedCount; ++i)
    ok = upload_job("parent", ctx, &kSharedJobs[i], shared[i]);
  return ok;
}

/* Phase 1: the threads and the child at once. Returns the number of failures. */
static int race(const char* self, const char* dir, plaidml_program* const* programs, int jobs) {
  plaidml_buffer* shared[kSharedCount][2];
  plaidml_context* ctx;
  FILE* go_file;
  Worker workers[kThreads];
  Side sides[kSideThreads];
  pthread_t threads[kThreads + kSideThreads];
  pthread_barrier_t start;
  Path cache = path_join(dir, "cache"), go = path_join(dir, "go"),
       out = path_join(dir, "child.out");
  plaidml_stats s;
  int i, calls = 0, failures = 0;
  pid_t child;
  ctx = open_context(cache.s);
  memset(shared, 0, sizeof(shared));
  if (!ctx || !upload_shared(ctx, shared)) return 1;
  child = spawn_child(self, cache.s, go.s, out.s);
  if (child < 0) return expect(0, "starting the child process"), 1;
  pthread_barrier_init(&start, NULL, kThreads + kSideThreads + 1);
  for (i = 0; i < kThreads; ++i) {
    Worker w = {i, ctx, programs, shared, &start, 0, 0};
    workers[i] = w;
    pthread_create(&threads[i], NULL, worker_main, &workers[i]);
  }
  for (i = 0; i < kSideThreads; ++i) {
    Side side = {i, cache.s, programs, &start, 0};
    sides[i] = side;
    pthread_create(&threads[kThreads + i], NULL, side_main, &sides[i]);
  }
  go_file = fopen(go.s, "w"); /* the child starts; should this fail, it starts after 60 s */
  failures += !expect(go_file != NULL, "creating the child's start file");
  if (go_file) fclose(go_file);
  pthread_barrier_wait(&start);
  for (i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
    calls += workers[i].calls;
    failures += workers[i].failures;
  }
  for (i = 0; i < kSideThreads; ++i) {
    pthread_join(threads[kThreads + i], NULL);
    failures += sides[i].failures;
  }
  pthread_barrier_destroy(&start);
  failures += !child_finished_ok(child, out.s);
  s = stats_of(ctx);
  print_stats("threads", &s);
  failures += !expect(s.compiles == jobs, "the threads compiled each shape once (single flight)");
  failures += !expect(s.cache_hits == calls - jobs, "every other call was a cache hit");
  failures += !expect(s.disk_invalid == 0, "the threads found no damaged entry");
  failures += !expect(s.disk_write_failures == 0, "every write of the threads succeeded");
  for (i = 0; i < kSharedCount; ++i) {
    plaidml_buffer_destroy(shared[i][0]);
    plaidml_buffer_destroy(shared[i][1]);
  }
  plaidml_context_destroy(ctx);
  return failures;
}

/* Phase 2: a fresh context finds everything in the folder. Returns the number of failures. */
static int reload(const char* dir, plaidml_program* const* programs, const Job* jobs, int n) {
  Path cache = path_join(dir, "cache");
  plaidml_context* ctx;
  plaidml_stats s;
  int i, failures = 0;
  i = count_entries(path_join(cache.s, "plans").s);
  printf("folder: %d plan entries, ", i);
  failures += !expect(i == n, "one plan entry per shape, each whole");
  i = count_entries(path_join(cache.s, "kernels").s);
  printf("%d kernel entries\n", i);
  failures += !expect(i > 0, "the kernel entries are whole");
  ctx = open_context(cache.s);
  if (!ctx) return failures + 1;
  for (i = 0; i < n; ++i) failures += !compile_job("fresh context", ctx, programs, &jobs[i]);
  s = stats_of(ctx);
  print_stats("fresh context", &s);
  failures += !expect(s.compiles == n, "the fresh context compiled each shape");
  failures += !expect(s.kernels_compiled == 0, "... generating no code");
  failures += !expect(s.plan_disk_hits == n, "... from the plan entries");
  failures += !expect(s.disk_writes == 0 && s.plan_disk_writes == 0, "... writing nothing");
  failures += !expect(s.disk_invalid == 0, "... finding no damaged entry");
  for (i = 0; i < n; ++i) failures += !run_job("fresh context", ctx, programs, &jobs[i], NULL);
  plaidml_context_destroy(ctx);
  return failures;
}

int main(int argc, char** argv) {
  plaidml_program* programs[2] = {NULL, NULL};
  const char* tmp = getenv("TMPDIR");
  Path dir = path_join(tmp && *tmp ? tmp : "/tmp", "plaidml_stress_XXXXXX");
  Job jobs[kMaxJobs];
  int n = all_jobs(jobs), failures = 0;
  double t0 = now_s(), t1;
  if (argc == 4 && strcmp(argv[1], "--child") == 0) return child_main(argv[2], argv[3]);
  if (!mkdtemp(dir.s)) return expect(0, "making a temporary folder"), 1;
  if (!open_programs(programs)) return 1;
  failures += race("/proc/self/exe", dir.s, programs, n);
  t1 = now_s();
  printf("stress: %d threads and a child process on %d shapes: %.2f s\n", kThreads, n, t1 - t0);
  if (failures == 0) failures += reload(dir.s, programs, jobs, n);
  printf("stress: a fresh context from the folder: %.2f s\n", now_s() - t1);
  plaidml_program_destroy(programs[0]);
  plaidml_program_destroy(programs[1]);
  remove_tree(dir.s);
  printf("stress: %s (%d failures)\n", failures == 0 ? "ok" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
