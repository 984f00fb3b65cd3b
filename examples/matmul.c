/* matmul.c: multiply two matrices with plaidml from C.
 *
 * Build (after installing plaidml):
 *   cc -std=c99 matmul.c -o matmul $(pkg-config --cflags --libs plaidml)
 * or from a build tree:
 *   cc -std=c99 matmul.c -o matmul -I<src>/include -L<build>/src/capi -lplaidml \
 *      -Wl,-rpath,<build>/src/capi
 *
 * The program is Tile text; its dimension sizes M, K, N are bound when it runs, from the shapes
 * of the input buffers, and each new combination of shapes compiles once. */
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <stdlib.h>

/* Every plaidml call returns a status; on failure, the message says what and where. */
#define TRY(call)                                                                  \
  do {                                                                             \
    plaidml_status status_ = (call);                                               \
    if (status_ != PLAIDML_STATUS_OK) {                                            \
      fprintf(stderr, "%s failed (%s): %s\n", #call, plaidml_status_name(status_), \
              plaidml_last_error_message());                                       \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static const char* kTile =
    "function (A[M, K], B[K, N]) -> (C) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "}\n";

int main(void) {
  const float a[2 * 3] = {1, 2, 3, 4, 5, 6};
  const float b[3 * 2] = {7, 8, 9, 10, 11, 12};
  const int64_t a_dims[2] = {2, 3};
  const int64_t b_dims[2] = {3, 2};
  const char* input_names[2] = {"A", "B"};
  float c[2 * 2];
  plaidml_context* ctx = NULL;
  plaidml_program* program = NULL;
  plaidml_buffer* inputs[2] = {NULL, NULL};
  plaidml_buffer* outputs[1] = {NULL}; /* NULL: plaidml allocates the output */
  plaidml_stats stats;
  const char* device = NULL;
  int64_t rows = 0, cols = 0;
  int i, j;

  printf("plaidml %s\n", plaidml_version());
  TRY(plaidml_context_create(NULL, &ctx)); /* NULL: default options */
  TRY(plaidml_context_device(ctx, &device));
  printf("device: %s\n", device);

  TRY(plaidml_program_from_tile(kTile, &program));
  TRY(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, a_dims, a, sizeof(a),
                                      &inputs[0]));
  TRY(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, b_dims, b, sizeof(b),
                                      &inputs[1]));

  /* Inputs are bound by name; the output's shape (2x2) is inferred from the inputs. */
  TRY(plaidml_execute(ctx, program, 2, input_names, inputs, 1, NULL, outputs));
  TRY(plaidml_buffer_dim(outputs[0], 0, &rows));
  TRY(plaidml_buffer_dim(outputs[0], 1, &cols));
  TRY(plaidml_buffer_read(outputs[0], c, sizeof(c)));
  printf("C (%lldx%lld):\n", (long long)rows, (long long)cols);
  for (i = 0; i < 2; ++i) {
    for (j = 0; j < 2; ++j) printf(" %6.1f", c[i * 2 + j]);
    printf("\n");
  }

  /* A second run at the same shapes is served from the compile cache. */
  plaidml_buffer_destroy(outputs[0]);
  outputs[0] = NULL;
  TRY(plaidml_execute(ctx, program, 2, input_names, inputs, 1, NULL, outputs));
  stats.struct_size = sizeof(stats);
  TRY(plaidml_context_stats(ctx, &stats));
  printf("compiles: %lld, cache hits: %lld, compile time: %.3f s\n", (long long)stats.compiles,
         (long long)stats.cache_hits, stats.compile_seconds);

  plaidml_buffer_destroy(outputs[0]);
  plaidml_buffer_destroy(inputs[0]);
  plaidml_buffer_destroy(inputs[1]);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
  return c[0] == 58.0f && c[3] == 154.0f ? 0 : 1;
}
