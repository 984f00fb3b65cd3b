/* conv.c: a 2-D "same" convolution built with builder calls (no Tile text), then printed as
 * Tile and run.
 *
 * Build (after installing plaidml):
 *   cc -std=c99 conv.c -o conv $(pkg-config --cflags --libs plaidml)
 * or from a build tree:
 *   cc -std=c99 conv.c -o conv -I<src>/include -L<build>/src/capi -lplaidml \
 *      -Wl,-rpath,<build>/src/capi
 *
 * The program is, in Tile:
 *   function (I[H, W], K[KH, KW]) -> (O) {
 *     O[y, x : H, W] = +(I[y + i - (KH - 1) / 2, x + j - (KW - 1) / 2] * K[i, j]);
 *   }
 * Accesses outside I are never performed (they do not count), which is zero padding. */
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                  \
  do {                                                                             \
    plaidml_status status_ = (call);                                               \
    if (status_ != PLAIDML_STATUS_OK) {                                            \
      fprintf(stderr, "%s failed (%s): %s\n", #call, plaidml_status_name(status_), \
              plaidml_last_error_message());                                       \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* e = a op b, in builder b. */
static plaidml_expr bin(plaidml_builder* b, plaidml_expr_op op, plaidml_expr x, plaidml_expr y) {
  plaidml_expr e;
  TRY(plaidml_expr_binary(b, op, x, y, &e));
  return e;
}

/* (KSIZE - 1) / 2: the padding before a kernel of size KSIZE. */
static plaidml_expr half_before(plaidml_builder* b, plaidml_expr ksize) {
  plaidml_expr one, two;
  TRY(plaidml_expr_int(b, 1, &one));
  TRY(plaidml_expr_int(b, 2, &two));
  return bin(b, PLAIDML_EXPR_DIV, bin(b, PLAIDML_EXPR_SUB, ksize, one), two);
}

static plaidml_program* build_conv(void) {
  const char* i_dims[2] = {"H", "W"};
  const char* k_dims[2] = {"KH", "KW"};
  plaidml_builder* b = NULL;
  plaidml_contraction* c = NULL;
  plaidml_program* program = NULL;
  plaidml_value I, K, O;
  plaidml_expr y, x, i, j, H, W, KH, KW, out_idx[2], sizes[2], in_idx[2], k_idx[2];

  TRY(plaidml_builder_create("conv", &b));
  TRY(plaidml_builder_add_input(b, "I", 2, i_dims, PLAIDML_DTYPE_FLOAT32, &I));
  TRY(plaidml_builder_add_input(b, "K", 2, k_dims, PLAIDML_DTYPE_FLOAT32, &K));
  TRY(plaidml_expr_index(b, "y", &y));
  TRY(plaidml_expr_index(b, "x", &x));
  TRY(plaidml_expr_index(b, "i", &i));
  TRY(plaidml_expr_index(b, "j", &j));
  TRY(plaidml_expr_dim(b, "H", &H));
  TRY(plaidml_expr_dim(b, "W", &W));
  TRY(plaidml_expr_dim(b, "KH", &KH));
  TRY(plaidml_expr_dim(b, "KW", &KW));

  out_idx[0] = y;
  out_idx[1] = x;
  sizes[0] = H;
  sizes[1] = W;
  in_idx[0] = bin(b, PLAIDML_EXPR_SUB, bin(b, PLAIDML_EXPR_ADD, y, i), half_before(b, KH));
  in_idx[1] = bin(b, PLAIDML_EXPR_SUB, bin(b, PLAIDML_EXPR_ADD, x, j), half_before(b, KW));
  k_idx[0] = i;
  k_idx[1] = j;

  TRY(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, &c));
  TRY(plaidml_contraction_set_output(c, 2, out_idx, sizes));
  TRY(plaidml_contraction_add_input(c, I, 2, in_idx));
  TRY(plaidml_contraction_add_input(c, K, 2, k_idx));
  TRY(plaidml_builder_add_contraction(b, c, &O));
  plaidml_contraction_destroy(c);
  TRY(plaidml_builder_add_output(b, "O", O));
  TRY(plaidml_builder_build(b, &program));
  plaidml_builder_destroy(b); /* the program stays valid */
  return program;
}

int main(void) {
  /* A 4x4 image of ones and a 3x3 kernel of ones: each output counts its in-range neighbours
   * (4 in the corners, 6 on the edges, 9 inside). */
  float image[16], kernel[9], out[16];
  const int64_t image_dims[2] = {4, 4};
  const int64_t kernel_dims[2] = {3, 3};
  const char* names[2] = {"I", "K"};
  plaidml_context* ctx = NULL;
  plaidml_program* program = build_conv();
  plaidml_buffer* inputs[2] = {NULL, NULL};
  plaidml_buffer* outputs[1] = {NULL};
  char* text = NULL;
  int n;

  for (n = 0; n < 16; ++n) image[n] = 1.0f;
  for (n = 0; n < 9; ++n) kernel[n] = 1.0f;

  TRY(plaidml_program_print(program, &text));
  printf("%s\n", text);
  plaidml_string_destroy(text);

  TRY(plaidml_context_create(NULL, &ctx));
  TRY(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, image_dims, image,
                                      sizeof(image), &inputs[0]));
  TRY(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kernel_dims, kernel,
                                      sizeof(kernel), &inputs[1]));
  TRY(plaidml_execute(ctx, program, 2, names, inputs, 1, NULL, outputs));
  TRY(plaidml_buffer_read(outputs[0], out, sizeof(out)));
  for (n = 0; n < 16; ++n) printf(" %3.0f%s", out[n], n % 4 == 3 ? "\n" : "");

  plaidml_buffer_destroy(outputs[0]);
  plaidml_buffer_destroy(inputs[0]);
  plaidml_buffer_destroy(inputs[1]);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
  return out[0] == 4.0f && out[1] == 6.0f && out[5] == 9.0f ? 0 : 1;
}
