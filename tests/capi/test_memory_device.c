/* The memory budget of a device with its own memory, from C99: the null device (1 GiB, found
 * through PLAIDML_PLUGIN_PATH, which CMake sets for this test) refuses an execute or a buffer
 * larger than its memory before allocating, with the figures, and the context's host memory
 * limit does not apply to it. */
#include <stdint.h>

#include "harness.h"

static plaidml_context* null_context(void) {
  plaidml_context_options* opts = NULL;
  plaidml_context* ctx = NULL;
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_OK(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_DEVICE, "null:0"));
  /* A host limit far below what runs here: a device with its own memory ignores it. */
  CHECK_OK(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, 1024));
  CHECK_OK(plaidml_context_create(opts, &ctx));
  plaidml_context_options_destroy(opts);
  return ctx;
}

static void test_device_budget(void) {
  plaidml_context* ctx = null_context();
  plaidml_program *big = NULL, *fits = NULL;
  plaidml_buffer *a = NULL, *b = NULL, *c = NULL;
  const int64_t four[1] = {4}, two_gib[1] = {INT64_C(1) << 29}, kib4[1] = {1024};
  const float ones[4] = {1, 1, 1, 1};
  plaidml_tensor_shape shape;
  plaidml_memory m;
  shape.dtype = PLAIDML_DTYPE_FLOAT32;
  shape.rank = 1;
  shape.dims = four;
  if (!ctx) return;
  /* 4 KiB: over the host limit, well within the device. */
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, kib4, &b));
  plaidml_buffer_destroy(b);
  b = NULL;
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 1, two_gib, &b),
            PLAIDML_STATUS_OUT_OF_MEMORY,
            "plaidml_buffer_create: a buffer of shape f32[536870912] needs 2.0 GiB, but null:0 "
            "has 1.0 GiB of memory");
  CHECK(b == NULL);
  /* C is 2^27 x 4 floats: 2 GiB. */
  CHECK_OK(plaidml_program_from_tile(
      "function (A[N]) -> (C) { C[i, j : 134217728, N] = +(A[j]); }", &big));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, four, ones, 16, &a));
  if (!big || !a) return;
  memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  CHECK_OK(plaidml_program_memory(ctx, big, 1, NULL, &shape, &m));
  CHECK(m.device_memory_bytes == UINT64_C(1) << 30);
  CHECK(m.budget_bytes == UINT64_C(1) << 30);
  CHECK(m.peak_bytes == (UINT64_C(2) << 30) + 16);
  CHECK_ERR(plaidml_execute(ctx, big, 1, NULL, &a, 1, NULL, &c), PLAIDML_STATUS_OUT_OF_MEMORY,
            "running the program on null:0 needs 2.0 GiB (inputs 16 B, outputs 2.0 GiB, "
            "intermediates 0 B, constants 0 B), but null:0 has 1.0 GiB of memory");
  CHECK(c == NULL);
  CHECK_ERR(plaidml_compile(ctx, big, 1, NULL, &shape), PLAIDML_STATUS_OUT_OF_MEMORY,
            "but null:0 has 1.0 GiB of memory");
  /* A program that fits gets as far as the launch, which the null device refuses by design. */
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = A + 1; }", &fits));
  CHECK_ERR(plaidml_execute(ctx, fits, 1, NULL, &a, 1, NULL, &c), PLAIDML_STATUS_UNSUPPORTED,
            "the null device launches nothing");
  CHECK(c == NULL);
  plaidml_buffer_destroy(a);
  plaidml_program_destroy(fits);
  plaidml_program_destroy(big);
  plaidml_context_destroy(ctx);
}

int main(void) {
  test_device_budget();
  return harness_finish();
}
