/* plaidml_program_memory from C99: the figures of a small program against hand-computed sizes,
 * the struct_size contract, NULL arguments and shapes that do not fit. */
#include <stdint.h>

#include "harness.h"

/* A chain of four kernels, each reading the one before: S, T and U are intermediates of 4000
 * bytes at N = 1000 f32 (12000 without sharing), and U can take S's block, which is free once
 * T's kernel has read it: an arena of 8000. Inputs 8000 bytes, output 4000. Each kernel reads
 * the one before in reverse, so that the CPU's row fusion (which would run the four as one
 * kernel, their intermediates live together) leaves them apart. */
static const char* kProgram =
    "function (A[N], B[N]) -> (C) {\n"
    "  S[i : N] = +(A[i] + B[i]);\n"
    "  T[i : N] = +(S[N - 1 - i] * A[i]);\n"
    "  U[i : N] = +(T[N - 1 - i] * B[i]);\n"
    "  C[i : N] = +(U[N - 1 - i] * A[i]);\n"
    "}\n";

static void test_figures(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* p = NULL;
  const int64_t dims[1] = {1000};
  plaidml_tensor_shape shapes[2];
  plaidml_memory m;
  plaidml_stats stats;
  shapes[0].dtype = PLAIDML_DTYPE_FLOAT32;
  shapes[0].rank = 1;
  shapes[0].dims = dims;
  shapes[1] = shapes[0];
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_OK(plaidml_program_from_tile(kProgram, &p));
  if (!ctx || !p) return;
  memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  CHECK_OK(plaidml_program_memory(ctx, p, 2, NULL, shapes, &m));
  CHECK(m.inputs_bytes == 8000);
  CHECK(m.outputs_bytes == 4000);
  CHECK(m.constants_bytes == 0);
  CHECK(m.unshared_bytes == 12000);
  CHECK(m.arena_bytes == 8000);
  CHECK(m.peak_bytes == 20000);
  CHECK(m.device_memory_bytes > 0);
  /* It compiled: an execute at these shapes is a cache hit. */
  stats.struct_size = sizeof(stats);
  CHECK_OK(plaidml_context_stats(ctx, &stats));
  CHECK(stats.compiles == 1);

  /* An older, shorter struct gets only what fits. */
  memset(&m, 0xab, sizeof(m));
  m.struct_size = offsetof(plaidml_memory, arena_bytes);
  CHECK_OK(plaidml_program_memory(ctx, p, 2, NULL, shapes, &m));
  CHECK(m.constants_bytes == 0);
  CHECK(m.arena_bytes == UINT64_C(0xabababababababab));

  m.struct_size = 2;
  CHECK_ERR(plaidml_program_memory(ctx, p, 2, NULL, shapes, &m), PLAIDML_STATUS_INVALID_ARGUMENT,
            "out_memory->struct_size is 2; set it to sizeof(plaidml_memory)");
  m.struct_size = sizeof(m);
  CHECK_ERR(plaidml_program_memory(NULL, p, 2, NULL, shapes, &m), PLAIDML_STATUS_INVALID_ARGUMENT,
            "'context' is NULL");
  CHECK_ERR(plaidml_program_memory(ctx, NULL, 2, NULL, shapes, &m),
            PLAIDML_STATUS_INVALID_ARGUMENT, "'program' is NULL");
  CHECK_ERR(plaidml_program_memory(ctx, p, 2, NULL, shapes, NULL), PLAIDML_STATUS_INVALID_ARGUMENT,
            "'out_memory' is NULL");
  CHECK_ERR(plaidml_program_memory(ctx, p, 2, NULL, NULL, &m), PLAIDML_STATUS_INVALID_ARGUMENT,
            "'input_shapes' is NULL");
  shapes[1].rank = 0;
  CHECK_ERR(plaidml_program_memory(ctx, p, 2, NULL, shapes, &m), PLAIDML_STATUS_TYPE_ERROR, "B");
  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
}

int main(void) {
  test_figures();
  return harness_finish();
}
