/* A device that disappears mid-run, from C99: the null device (offered through
 * PLAIDML_PLUGIN_PATH, which CMake sets for this test) is lost after its first K calls when
 * PLAIDML_NULL_DEVICE_LOST_AFTER=K is set as it opens. From then on every call that needs it
 * (buffer reads, writes and creations, compiles, executes) gives DEVICE_ERROR naming the device,
 * closing its buffers and the context is safe, and the CPU of the same context keeps working.
 * The sweep loses the device after each call in turn of a run that uses it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

static const char* kAddText = "function (A[N], B[N]) -> (C) { C = A + B; }";

/* A context on the null device, which will be lost after `lost_after` calls. */
static plaidml_context* losing_context(const char* lost_after) {
  plaidml_context_options* opts = NULL;
  plaidml_context* ctx = NULL;
  setenv("PLAIDML_NULL_DEVICE_LOST_AFTER", lost_after, 1);
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_DEVICE, "null:0"));
  CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_CACHE_DIR, ""));
  CHECK_OK(plaidml_context_create(opts, &ctx));
  plaidml_context_options_destroy(opts);
  return ctx;
}

/* The CPU of a context whose null device is lost still computes A + B. */
static void check_cpu_works(plaidml_context* ctx, const plaidml_program* add) {
  const int64_t dims[1] = {3};
  const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, want[3] = {11, 22, 33};
  float got[3] = {0, 0, 0};
  plaidml_buffer *ba = NULL, *bb = NULL, *bc = NULL;
  plaidml_buffer* inputs[2];
  CHECK_OK(plaidml_context_select_device(ctx, "cpu:0"));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, a, sizeof a, &ba));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, b, sizeof b, &bb));
  inputs[0] = ba;
  inputs[1] = bb;
  CHECK_OK(plaidml_execute(ctx, add, 2, NULL, inputs, 1, NULL, &bc));
  if (bc) CHECK_OK(plaidml_buffer_read(bc, got, sizeof got));
  CHECK(harness_close(got, want, 3, 0.0f));
  plaidml_buffer_destroy(ba);
  plaidml_buffer_destroy(bb);
  plaidml_buffer_destroy(bc);
}

/* Lost after 2 calls (the allocation and the write of A): everything after fails with a status
 * that names the device and the loss. */
static void test_calls_after_the_loss(const plaidml_program* add) {
  plaidml_context* ctx = losing_context("2");
  const int64_t dims[1] = {3};
  const float data[3] = {1, 2, 3};
  float back[3];
  plaidml_buffer *a = NULL, *b = NULL, *c = NULL;
  plaidml_buffer* inputs[2];
  plaidml_tensor_shape shape;
  shape.dtype = PLAIDML_DTYPE_FLOAT32;
  shape.rank = 1;
  shape.dims = dims;
  if (!ctx) return;
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, data, sizeof data,
                                           &a));
  CHECK_ERR(plaidml_buffer_read(a, back, sizeof back), PLAIDML_STATUS_DEVICE_ERROR,
            "plaidml_buffer_read: device null:0: read: the null device was lost after 2 calls "
            "(PLAIDML_NULL_DEVICE_LOST_AFTER)");
  CHECK_ERR(plaidml_buffer_write(a, data, sizeof data), PLAIDML_STATUS_DEVICE_ERROR,
            "plaidml_buffer_write: device null:0: write: the null device was lost");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, &b),
            PLAIDML_STATUS_DEVICE_ERROR, "device null:0: allocate: the null device was lost");
  CHECK(b == NULL);
  {
    plaidml_tensor_shape shapes[2];
    shapes[0] = shape;
    shapes[1] = shape;
    CHECK_ERR(plaidml_compile(ctx, add, 2, NULL, shapes), PLAIDML_STATUS_DEVICE_ERROR,
              "device null:0: load: the null device was lost");
  }
  inputs[0] = a;
  inputs[1] = a;
  CHECK_ERR(plaidml_execute(ctx, add, 2, NULL, inputs, 1, NULL, &c), PLAIDML_STATUS_DEVICE_ERROR,
            "the null device was lost");
  CHECK(c == NULL);
  check_cpu_works(ctx, add);
  plaidml_buffer_destroy(a);
  plaidml_context_destroy(ctx);
}

/* Whether status is what a call may give in a run where the device is lost at some point:
 * before the loss OK (or `before`, the null device's refusal to launch), after it
 * DEVICE_ERROR naming the device; *lost records the first loss, after which only
 * DEVICE_ERROR may come. */
static int acceptable(plaidml_status status, plaidml_status before, int* lost) {
  const char* message = plaidml_last_error_message();
  if (status == PLAIDML_STATUS_DEVICE_ERROR) {
    *lost = 1;
    return strstr(message, "device null:0") != NULL &&
           strstr(message, "the null device was lost") != NULL;
  }
  if (*lost) return 0;
  if (status != PLAIDML_STATUS_OK && status != before) {
    fprintf(stderr, "  unexpected %s: %s\n", plaidml_status_name(status), message);
  }
  return status == PLAIDML_STATUS_OK || status == before;
}

/* One run that uses the device throughout, lost after k calls; returns whether it was lost. */
static int run_losing_at(unsigned k, const plaidml_program* add) {
  char value[16];
  plaidml_context* ctx;
  const int64_t dims[1] = {4};
  const float data[4] = {1, 2, 3, 4};
  float back[4];
  plaidml_buffer *a = NULL, *b = NULL, *c = NULL;
  plaidml_buffer* inputs[2];
  plaidml_tensor_shape shapes[2];
  int lost = 0;
  snprintf(value, sizeof value, "%u", k);
  ctx = losing_context(value);
  if (!ctx) return 0;
  shapes[0].dtype = shapes[1].dtype = PLAIDML_DTYPE_FLOAT32;
  shapes[0].rank = shapes[1].rank = 1;
  shapes[0].dims = shapes[1].dims = dims;
  CHECK(acceptable(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, data,
                                                   sizeof data, &a),
                   PLAIDML_STATUS_OK, &lost));
  CHECK(acceptable(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, &b),
                   PLAIDML_STATUS_OK, &lost));
  if (b) CHECK(acceptable(plaidml_buffer_write(b, data, sizeof data), PLAIDML_STATUS_OK, &lost));
  CHECK(acceptable(plaidml_compile(ctx, add, 2, NULL, shapes), PLAIDML_STATUS_OK, &lost));
  if (a && b) {
    inputs[0] = a;
    inputs[1] = b;
    CHECK(acceptable(plaidml_execute(ctx, add, 2, NULL, inputs, 1, NULL, &c),
                     PLAIDML_STATUS_UNSUPPORTED, &lost));
    CHECK(c == NULL); /* the null device never runs a kernel: no output either way */
  }
  if (a) CHECK(acceptable(plaidml_buffer_read(a, back, sizeof back), PLAIDML_STATUS_OK, &lost));
  check_cpu_works(ctx, add);
  plaidml_buffer_destroy(a);
  plaidml_buffer_destroy(b);
  plaidml_context_destroy(ctx);
  return lost;
}

static void test_loss_after_each_call(const plaidml_program* add) {
  unsigned k;
  for (k = 0; k < 64; ++k) {
    if (!run_losing_at(k, add)) break;
  }
  printf("device lost after each of the first %u calls of a run\n", k);
  CHECK(k > 5);  /* the run makes more calls than that: each was a point of loss */
  CHECK(k < 64); /* and the sweep reached a run that finished before the loss */
}

int main(void) {
  plaidml_program* add = NULL;
  CHECK_OK(plaidml_program_from_tile(kAddText, &add));
  if (!add) return harness_finish();
  test_calls_after_the_loss(add);
  test_loss_after_each_call(add);
  plaidml_program_destroy(add);
  return harness_finish();
}
