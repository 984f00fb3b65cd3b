/* Profiling through the C ABI: plaidml_builder_set_origin labels values, a profiled execute
 * records its compile, its kernels (named by the origins of what they compute) and its
 * transfers, as a Chrome trace and a summary table; clearing, turning it off, NULL arguments. */
#include <stdlib.h>

#include "harness.h"

static const float kA[6] = {1, 2, 3, 4, 5, 6};
static const float kB[6] = {7, 8, 9, 10, 11, 12};
static const int64_t kADims[2] = {2, 3};
static const int64_t kBDims[2] = {3, 2};
static const char* kNames[2] = {"A", "B"};

/* R = relu(A x B - 100), the matmul labelled "mm1 (MatMul)" and the rest "act (Relu)". */
static plaidml_program* build_labelled(void) {
  plaidml_builder* b = NULL;
  plaidml_program* program = NULL;
  const char* a_dims[2] = {"M", "K"};
  const char* b_dims[2] = {"K", "N"};
  plaidml_value A = {0}, B = {0}, C = {0}, hundred = {0}, D = {0}, R = {0}, ops[2];
  CHECK_OK(plaidml_builder_create("labelled", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 2, a_dims, PLAIDML_DTYPE_FLOAT32, &A));
  CHECK_OK(plaidml_builder_add_input(b, "B", 2, b_dims, PLAIDML_DTYPE_FLOAT32, &B));
  CHECK_OK(plaidml_builder_set_origin(b, "mm1 (MatMul)"));
  harness_add_matmul(b, A, B, &C);
  CHECK_OK(plaidml_builder_set_origin(b, "act (Relu)"));
  CHECK_OK(plaidml_builder_float_constant(b, 100.0, &hundred));
  ops[0] = C;
  ops[1] = hundred;
  CHECK_OK(plaidml_builder_call(b, "sub", 2, ops, 0, NULL, &D));
  CHECK_OK(plaidml_builder_call(b, "relu", 1, &D, 0, NULL, &R));
  CHECK_OK(plaidml_builder_set_origin(b, NULL));
  CHECK_OK(plaidml_builder_add_output(b, "R", R));
  CHECK_OK(plaidml_builder_build(b, &program));
  plaidml_builder_destroy(b);
  return program;
}

/* Runs the program once and checks R = [[0 0] [39 54]]; reads the result (a transfer). */
static void run_once(plaidml_context* ctx, const plaidml_program* program) {
  const float want[4] = {0, 0, 39, 54};
  float r[4] = {0};
  plaidml_buffer* in[2] = {NULL, NULL};
  plaidml_buffer* out[1] = {NULL};
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kADims, kA,
                                           sizeof(kA), &in[0]));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kBDims, kB,
                                           sizeof(kB), &in[1]));
  CHECK_OK(plaidml_execute(ctx, program, 2, kNames, in, 1, NULL, out));
  if (out[0] != NULL) {
    CHECK_OK(plaidml_buffer_read(out[0], r, sizeof(r)));
    CHECK(harness_close(r, want, 4, 1e-4f));
  }
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_buffer_destroy(in[1]);
}

/* Occurrences of needle in text. */
static int count(const char* text, const char* needle) {
  int n = 0;
  const char* at = text;
  while ((at = strstr(at, needle)) != NULL) {
    ++n;
    at += strlen(needle);
  }
  return n;
}

static char* trace_of(plaidml_context* ctx) {
  char* json = NULL;
  CHECK_OK(plaidml_context_profile_trace(ctx, &json));
  return json;
}

static void test_profiled_runs(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* program = build_labelled();
  char* json = NULL;
  char* table = NULL;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx || !program) return;
  run_once(ctx, program); /* not profiled: records nothing */
  json = trace_of(ctx);
  CHECK(json && count(json, "\"ph\": \"X\"") == 0);
  plaidml_string_destroy(json);

  CHECK_OK(plaidml_context_set_profiling(ctx, true));
  run_once(ctx, program);
  json = trace_of(ctx);
  if (json) {
    /* One fused kernel computes both labels; no compile (the plan is cached); one read. */
    CHECK(count(json, "\"cat\": \"kernel\"") >= 1);
    CHECK(count(json, "mm1 (MatMul)") >= 1 && count(json, "act (Relu)") >= 1);
    /* The matmul's FLOPs: 2 x 3 x 2 multiply-adds, two operations each. */
    CHECK(count(json, "\"flops\": 24") == 1);
    CHECK(count(json, "\"cat\": \"compile\"") == 0);
    CHECK(count(json, "\"name\": \"read\"") == 1);
    CHECK(count(json, "\"traceEvents\"") == 1 && count(json, "\"dropped_events\": 0") == 1);
  }
  plaidml_string_destroy(json);
  CHECK_OK(plaidml_context_profile_summary(ctx, 5, &table));
  if (table) {
    CHECK(strstr(table, "GFLOP/s") != NULL && strstr(table, "mm1 (MatMul)") != NULL);
    CHECK(strstr(table, "transfers: 3 of") != NULL); /* two inputs written, R read */
  }
  plaidml_string_destroy(table);

  CHECK_OK(plaidml_context_profile_clear(ctx));
  json = trace_of(ctx);
  CHECK(json && count(json, "\"ph\": \"X\"") == 0);
  plaidml_string_destroy(json);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
}

/* A new context compiles: the compile is on the trace. */
static void test_compile_is_recorded(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* program = build_labelled();
  char* json = NULL;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!ctx || !program) return;
  CHECK_OK(plaidml_context_set_profiling(ctx, true));
  run_once(ctx, program);
  json = trace_of(ctx);
  CHECK(json && count(json, "\"name\": \"compile labelled\"") == 1);
  plaidml_string_destroy(json);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
}

static void test_null_arguments(void) {
  const plaidml_status INV = PLAIDML_STATUS_INVALID_ARGUMENT;
  plaidml_context* ctx = NULL;
  char* text = NULL;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_ERR(plaidml_context_set_profiling(NULL, true), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_profile_trace(NULL, &text), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_profile_trace(ctx, NULL), INV, "'out_json' is NULL");
  CHECK_ERR(plaidml_context_profile_summary(NULL, 3, &text), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_profile_summary(ctx, 3, NULL), INV, "'out_text' is NULL");
  CHECK_ERR(plaidml_context_profile_clear(NULL), INV, "'context' is NULL");
  CHECK_ERR(plaidml_builder_set_origin(NULL, "x"), INV, "'builder' is NULL");
  plaidml_context_destroy(ctx);
}

int main(void) {
  test_profiled_runs();
  test_compile_is_recorded();
  test_null_arguments();
  return harness_finish();
}
