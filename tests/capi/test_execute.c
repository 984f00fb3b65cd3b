/* Running programs through the C ABI: devices, buffers, execution by name with inferred output
 * shapes, compile warm-up, statistics, concurrency and the user-facing errors. Expected values
 * are computed by hand. */
#include <pthread.h>
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

static plaidml_buffer* make(plaidml_context* ctx, const int64_t* dims, const float* data,
                            size_t n) {
  plaidml_buffer* buf = NULL;
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, data,
                                           n * sizeof(float), &buf));
  return buf;
}

static plaidml_program* parse(const char* text) {
  plaidml_program* p = NULL;
  CHECK_OK(plaidml_program_from_tile(text, &p));
  return p;
}

/* Runs matmul on kA, kB into a new buffer and checks it against kC. */
static void run_matmul(plaidml_context* ctx, const plaidml_program* program) {
  plaidml_buffer* in[2];
  plaidml_buffer* out[1] = {NULL};
  float c[4] = {0};
  size_t rank = 0;
  int64_t d0 = 0, d1 = 0;
  plaidml_dtype dtype = 0;
  in[0] = make(ctx, kADims, kA, 6);
  in[1] = make(ctx, kBDims, kB, 6);
  CHECK_OK(plaidml_execute(ctx, program, 2, kNames, in, 1, NULL, out));
  if (out[0] != NULL) {
    CHECK_OK(plaidml_buffer_rank(out[0], &rank));
    CHECK_OK(plaidml_buffer_dim(out[0], 0, &d0));
    CHECK_OK(plaidml_buffer_dim(out[0], 1, &d1));
    CHECK_OK(plaidml_buffer_dtype(out[0], &dtype));
    CHECK(rank == 2 && d0 == 2 && d1 == 2 && dtype == PLAIDML_DTYPE_FLOAT32);
    CHECK_OK(plaidml_buffer_read(out[0], c, sizeof(c)));
    CHECK(harness_close(c, kC, 4, 1e-4f));
  }
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
}

static void test_devices(void) {
  plaidml_context* ctx = NULL;
  plaidml_context_options* opts = NULL;
  size_t count = 0;
  const char* id = NULL;
  const char* name = NULL;
  const char* reason = NULL;
  bool available = false;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx) return;
  CHECK_OK(plaidml_device_count(ctx, &count));
  CHECK(count >= 1);
  CHECK_OK(plaidml_device_id(ctx, 0, &id));
  CHECK(id && strcmp(id, "cpu:0") == 0);
  CHECK_OK(plaidml_device_name(ctx, 0, &name));
  CHECK(name && strlen(name) > 0);
  CHECK_OK(plaidml_device_available(ctx, 0, &available, &reason));
  CHECK(available && reason && strcmp(reason, "") == 0);
  CHECK_OK(plaidml_context_device(ctx, &id));
  CHECK(id && strcmp(id, "cpu:0") == 0);
  CHECK_OK(plaidml_context_select_device(ctx, "cpu:0"));
  CHECK_ERR(plaidml_context_select_device(ctx, "gpu:7"), PLAIDML_STATUS_NOT_FOUND, "gpu:7");
  plaidml_context_destroy(ctx);

  ctx = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_OK(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_NUM_THREADS, 2));
  CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_DEVICE, "nope:3"));
  CHECK_ERR(plaidml_context_create(opts, &ctx), PLAIDML_STATUS_NOT_FOUND, "nope:3");
  CHECK(ctx == NULL);
  CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_DEVICE, "cpu:0"));
  CHECK_OK(plaidml_context_create(opts, &ctx));
  plaidml_context_options_destroy(opts);
  if (ctx) {
    plaidml_program* p = parse(kMatmul);
    run_matmul(ctx, p);
    plaidml_program_destroy(p);
  }
  plaidml_context_destroy(ctx);
}

static void test_buffers(plaidml_context* ctx) {
  int64_t dims[2] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  float back[6] = {0};
  size_t bytes = 0;
  plaidml_buffer* buf = NULL;
  plaidml_buffer* scalar = NULL;
  double value = 2.5, value_back = 0;
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, &buf));
  if (!buf) return;
  CHECK_OK(plaidml_buffer_byte_size(buf, &bytes));
  CHECK(bytes == 24);
  CHECK_ERR(plaidml_buffer_write(buf, data, 20), PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_buffer_write: size is 20 bytes but the buffer f32[2, 3] holds 24 bytes");
  CHECK_ERR(plaidml_buffer_read(buf, back, 28), PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_buffer_read: size is 28 bytes but the buffer f32[2, 3] holds 24 bytes");
  CHECK_OK(plaidml_buffer_write(buf, data, sizeof(data)));
  CHECK_OK(plaidml_buffer_read(buf, back, sizeof(back)));
  CHECK(harness_close(back, data, 6, 0));
  plaidml_buffer_destroy(buf);
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT64, 0, NULL, &value,
                                           sizeof(value), &scalar));
  if (scalar) {
    CHECK_OK(plaidml_buffer_read(scalar, &value_back, sizeof(value_back)));
    CHECK(value_back == 2.5);
  }
  plaidml_buffer_destroy(scalar);
}

/* matmul from builder calls, plus an elementwise relu(C - 100): [[0 0] [39 54]]. */
static void test_builder_execute(plaidml_context* ctx) {
  plaidml_builder* b = NULL;
  plaidml_program* program = NULL;
  const char* a_dims[2] = {"M", "K"};
  const char* b_dims[2] = {"K", "N"};
  plaidml_value A = {0}, B = {0}, C = {0}, hundred = {0}, D = {0}, R = {0}, ops[2];
  plaidml_buffer* in[2];
  plaidml_buffer* out[2] = {NULL, NULL};
  float r[4] = {0}, cc[4] = {0};
  const float want_r[4] = {0, 0, 39, 54};
  CHECK_OK(plaidml_builder_create("matmul_relu", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 2, a_dims, PLAIDML_DTYPE_FLOAT32, &A));
  CHECK_OK(plaidml_builder_add_input(b, "B", 2, b_dims, PLAIDML_DTYPE_INVALID, &B));
  harness_add_matmul(b, A, B, &C);
  CHECK_OK(plaidml_builder_float_constant(b, 100.0, &hundred));
  ops[0] = C;
  ops[1] = hundred;
  CHECK_OK(plaidml_builder_call(b, "sub", 2, ops, 0, NULL, &D));
  CHECK_OK(plaidml_builder_call(b, "relu", 1, &D, 0, NULL, &R));
  CHECK_OK(plaidml_builder_add_output(b, "R", R));
  CHECK_OK(plaidml_builder_add_output(b, "C", C));
  CHECK_OK(plaidml_builder_build(b, &program));
  plaidml_builder_destroy(b);
  if (!program) return;
  in[0] = make(ctx, kADims, kA, 6);
  in[1] = make(ctx, kBDims, kB, 6);
  CHECK_OK(plaidml_execute(ctx, program, 2, kNames, in, 2, NULL, out));
  if (out[0] && out[1]) {
    CHECK_OK(plaidml_buffer_read(out[0], r, sizeof(r)));
    CHECK(harness_close(r, want_r, 4, 1e-4f));
    CHECK_OK(plaidml_buffer_read(out[1], cc, sizeof(cc)));
    CHECK(harness_close(cc, kC, 4, 1e-4f));
  }
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(out[1]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  plaidml_program_destroy(program);
}

static void test_stats(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* p = parse(kMatmul);
  plaidml_stats stats;
  plaidml_tensor_shape shapes[2];
  struct {
    size_t struct_size;
    int64_t compiles;
    int64_t sentinel;
  } old_stats;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx || !p) return;
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 0 && stats.cache_hits == 0);
  run_matmul(ctx, p);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1 && stats.cache_hits == 0);
  CHECK(stats.compile_seconds > 0 && stats.last_compile_seconds > 0);
  run_matmul(ctx, p);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1 && stats.cache_hits == 1);
  /* An older, smaller struct: only the fields it has are written. */
  old_stats.struct_size = offsetof(plaidml_stats, cache_hits);
  old_stats.sentinel = -77;
  CHECK_OK(plaidml_context_stats(ctx, (plaidml_stats*)(void*)&old_stats));
  CHECK(old_stats.compiles == 1 && old_stats.sentinel == -77);
  plaidml_context_destroy(ctx);

  /* plaidml_compile warms the cache: the run that follows is a hit. */
  ctx = NULL;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  shapes[0].dtype = PLAIDML_DTYPE_FLOAT32;
  shapes[0].rank = 2;
  shapes[0].dims = kADims;
  shapes[1].dtype = PLAIDML_DTYPE_FLOAT32;
  shapes[1].rank = 2;
  shapes[1].dims = kBDims;
  CHECK_OK(plaidml_compile(ctx, p, 2, kNames, shapes));
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1 && stats.cache_hits == 0);
  run_matmul(ctx, p);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1 && stats.cache_hits == 1);
  shapes[1].dims = kADims; /* K: 3 from A, 2 from B */
  CHECK_ERR(plaidml_compile(ctx, p, 2, kNames, shapes), PLAIDML_STATUS_TYPE_ERROR, "dimension 'K'");
  plaidml_context_destroy(ctx);
  plaidml_program_destroy(p);
}

static void test_execute_errors(plaidml_context* ctx) {
  plaidml_program* p = parse(kMatmul);
  plaidml_context* other_ctx = NULL;
  plaidml_buffer* in[2];
  plaidml_buffer* wrong_k = NULL;
  plaidml_buffer* foreign = NULL;
  plaidml_buffer* out[1] = {NULL};
  plaidml_buffer* given[1] = {NULL};
  plaidml_buffer* mix[2];
  int64_t c_dims[2] = {2, 2};
  int64_t bad_dims[2] = {3, 3};
  float c[4] = {0};
  if (!p) return;
  in[0] = make(ctx, kADims, kA, 6);
  in[1] = make(ctx, kBDims, kB, 6);
  wrong_k = make(ctx, kADims, kA, 6); /* 2x3 where B must be 3xN */
  mix[0] = in[0];
  mix[1] = wrong_k;
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, mix, 1, NULL, out), PLAIDML_STATUS_TYPE_ERROR,
            "dimension 'K'");
  CHECK_OK(plaidml_context_create(NULL, &other_ctx));
  foreign = make(other_ctx, kBDims, kB, 6);
  mix[1] = foreign;
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, mix, 1, NULL, out), PLAIDML_STATUS_INVALID_ARGUMENT,
            "input 'B': the buffer belongs to another context");
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 1, NULL, &foreign),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "output 'C': the buffer belongs to another context");
  /* A caller-provided output of the wrong shape is refused, and one of the right shape is
   * written in place. */
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, bad_dims, &given[0]));
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 1, NULL, given), PLAIDML_STATUS_TYPE_ERROR,
            "'C'");
  plaidml_buffer_destroy(given[0]);
  given[0] = NULL;
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, c_dims, &given[0]));
  CHECK_OK(plaidml_execute(ctx, p, 2, NULL, in, 1, NULL, given));
  CHECK_OK(plaidml_buffer_read(given[0], c, sizeof(c)));
  CHECK(harness_close(c, kC, 4, 1e-4f));
  plaidml_buffer_destroy(given[0]);
  plaidml_buffer_destroy(foreign);
  plaidml_context_destroy(other_ctx);
  plaidml_buffer_destroy(wrong_k);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  plaidml_program_destroy(p);
}

/* Each message of matching names and positions to the program's inputs and outputs
 * (jit/io_binding.h), as C callers see it: after the function's name. */
static void test_binding_errors(plaidml_context* ctx) {
  enum { INV = PLAIDML_STATUS_INVALID_ARGUMENT, NF = PLAIDML_STATUS_NOT_FOUND };
  plaidml_program* p = parse(kMatmul);
  plaidml_tensor_shape shapes[3];
  plaidml_memory memory;
  plaidml_buffer* in[2];
  plaidml_buffer* saved;
  plaidml_buffer* out[2] = {NULL, NULL};
  const char* unknown[2] = {"A", "Q"};
  const char* null_name[2] = {"A", NULL};
  const char* twice[2] = {"A", "A"};
  const char* out_unknown[1] = {"Z"};
  const char* out_null[1] = {NULL};
  const char* out_twice[2] = {"C", "C"};
  int i;
  if (!p) return;
  for (i = 0; i < 3; ++i) {
    shapes[i].dtype = PLAIDML_DTYPE_FLOAT32;
    shapes[i].rank = 2;
    shapes[i].dims = i == 1 ? kBDims : kADims;
  }
  memset(&memory, 0, sizeof(memory));
  memory.struct_size = sizeof(memory);
  CHECK_ERR(plaidml_compile(ctx, p, 2, unknown, shapes), NF,
            "plaidml_compile: the program has no input 'Q' (inputs: 'A', 'B')");
  CHECK_ERR(plaidml_compile(ctx, p, 1, kNames, shapes), INV,
            "plaidml_compile: missing input 'B'; the program's inputs are 'A', 'B'");
  CHECK_ERR(plaidml_compile(ctx, p, 0, NULL, NULL), INV,
            "plaidml_compile: missing inputs 'A', 'B'; the program's inputs are 'A', 'B'");
  CHECK_ERR(plaidml_compile(ctx, p, 2, twice, shapes), INV,
            "plaidml_compile: input 'A' is given twice");
  CHECK_ERR(plaidml_compile(ctx, p, 2, null_name, shapes), INV,
            "plaidml_compile: input_names[1] is NULL");
  CHECK_ERR(plaidml_compile(ctx, p, 3, NULL, shapes), INV,
            "plaidml_compile: 3 inputs given but the program has 2 ('A', 'B')");
  CHECK_ERR(plaidml_program_memory(ctx, p, 2, unknown, shapes, &memory), NF,
            "plaidml_program_memory: the program has no input 'Q' (inputs: 'A', 'B')");
  in[0] = make(ctx, kADims, kA, 6);
  in[1] = make(ctx, kBDims, kB, 6);
  CHECK_ERR(plaidml_execute(ctx, p, 2, unknown, in, 1, NULL, out), NF,
            "plaidml_execute: the program has no input 'Q' (inputs: 'A', 'B')");
  CHECK_ERR(plaidml_execute(ctx, p, 1, kNames, in, 1, NULL, out), INV,
            "plaidml_execute: missing input 'B'; the program's inputs are 'A', 'B'");
  saved = in[1];
  in[1] = NULL;
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 1, NULL, out), INV,
            "plaidml_execute: the buffer for input 'B' is NULL");
  in[1] = saved;
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 1, out_unknown, out), NF,
            "plaidml_execute: the program has no output 'Z' (outputs: 'C')");
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 1, out_null, out), INV,
            "plaidml_execute: output_names[0] is NULL");
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 2, out_twice, out), INV,
            "plaidml_execute: output 'C' is given twice");
  CHECK_ERR(plaidml_execute(ctx, p, 2, kNames, in, 2, NULL, out), INV,
            "plaidml_execute: 2 outputs given but the program has 1 ('C')");
  CHECK(out[0] == NULL && out[1] == NULL);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  plaidml_program_destroy(p);
}

/* Many threads run one program at once on a fresh context: every result is right and the
 * program compiles once. */
enum { kThreads = 8 };
struct ThreadArgs {
  plaidml_context* ctx;
  plaidml_program* program;
  int ok;
};

static void* thread_main(void* arg) {
  struct ThreadArgs* a = (struct ThreadArgs*)arg;
  plaidml_buffer* in[2] = {NULL, NULL};
  plaidml_buffer* out[1] = {NULL};
  float c[4] = {0};
  int i;
  a->ok = plaidml_buffer_create_from_host(a->ctx, PLAIDML_DTYPE_FLOAT32, 2, kADims, kA, sizeof(kA),
                                          &in[0]) == PLAIDML_STATUS_OK &&
          plaidml_buffer_create_from_host(a->ctx, PLAIDML_DTYPE_FLOAT32, 2, kBDims, kB, sizeof(kB),
                                          &in[1]) == PLAIDML_STATUS_OK &&
          plaidml_execute(a->ctx, a->program, 2, kNames, in, 1, NULL, out) == PLAIDML_STATUS_OK &&
          plaidml_buffer_read(out[0], c, sizeof(c)) == PLAIDML_STATUS_OK;
  for (i = 0; i < 4; ++i) {
    if (c[i] != kC[i]) a->ok = 0;
  }
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
  return NULL;
}

static void test_concurrency(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* p = parse(kMatmul);
  pthread_t threads[kThreads];
  struct ThreadArgs args[kThreads];
  plaidml_stats stats;
  int i, all_ok = 1;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx || !p) return;
  for (i = 0; i < kThreads; ++i) {
    args[i].ctx = ctx;
    args[i].program = p;
    args[i].ok = 0;
    pthread_create(&threads[i], NULL, thread_main, &args[i]);
  }
  for (i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
    all_ok = all_ok && args[i].ok;
  }
  CHECK(all_ok);
  stats.struct_size = sizeof(stats);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1 && stats.cache_hits == kThreads - 1);
  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
}

/* Buffers keep their runtime alive: destroying the context first is allowed. An input passed
 * straight through as an output works. */
static void test_lifetimes(void) {
  plaidml_context* ctx = NULL;
  plaidml_buffer* buf = NULL;
  plaidml_buffer* out[2] = {NULL, NULL};
  plaidml_builder* b = NULL;
  plaidml_program* p = NULL;
  plaidml_value A = {0}, D = {0}, two = {0}, ops[2];
  const char* dims[1] = {"N"};
  const int64_t n = 3;
  const float data[3] = {1, 2, 3};
  const float doubled[3] = {2, 4, 6};
  float back[3] = {0};
  CHECK_OK(plaidml_builder_create("passthrough", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 1, dims, PLAIDML_DTYPE_INVALID, &A));
  CHECK_OK(plaidml_builder_int_constant(b, 2, &two));
  ops[0] = A;
  ops[1] = two;
  CHECK_OK(plaidml_builder_call(b, "mul", 2, ops, 0, NULL, &D));
  CHECK_OK(plaidml_builder_add_output(b, "A", A));
  CHECK_OK(plaidml_builder_add_output(b, "D", D));
  CHECK_OK(plaidml_builder_build(b, &p));
  plaidml_builder_destroy(b);
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx || !p) return;
  CHECK_OK(
      plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, &n, data, sizeof(data), &buf));
  CHECK_OK(plaidml_execute(ctx, p, 1, NULL, &buf, 2, NULL, out));
  plaidml_context_destroy(ctx);
  plaidml_program_destroy(p);
  if (out[0] && out[1]) {
    CHECK_OK(plaidml_buffer_read(out[0], back, sizeof(back)));
    CHECK(harness_close(back, data, 3, 0));
    CHECK_OK(plaidml_buffer_read(out[1], back, sizeof(back)));
    CHECK(harness_close(back, doubled, 3, 0));
  }
  CHECK_OK(plaidml_buffer_read(buf, back, sizeof(back)));
  CHECK(harness_close(back, data, 3, 0));
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(out[1]);
  plaidml_buffer_destroy(buf);
}

/* The last error is per thread: a failure on another thread does not show here. */
static void* fail_on_thread(void* arg) {
  (void)arg;
  (void)plaidml_set_log_level(99);
  return NULL;
}

static void test_thread_local_error(void) {
  pthread_t t;
  (void)plaidml_context_select_device(NULL, "x");
  pthread_create(&t, NULL, fail_on_thread, NULL);
  pthread_join(t, NULL);
  CHECK(strstr(plaidml_last_error_message(), "'context' is NULL") != NULL);
}

int main(void) {
  plaidml_context* ctx = NULL;
  test_devices();
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (ctx) {
    plaidml_program* p = parse(kMatmul);
    run_matmul(ctx, p);
    plaidml_program_destroy(p);
    test_buffers(ctx);
    test_builder_execute(ctx);
    test_execute_errors(ctx);
    test_binding_errors(ctx);
  }
  plaidml_context_destroy(ctx);
  test_stats();
  test_concurrency();
  test_lifetimes();
  test_thread_local_error();
  return harness_finish();
}
