/* Program constants (plaidml_builder_add_constant): copied and adopted bytes, resident uploads,
 * printing, errors; fixed-size input dims; value sizes known while building; input
 * introspection; plaidml_set_last_error. Expected values are computed by hand. */
#include "harness.h"

static int g_released = 0;
static void count_release(void* data) {
  (void)data;
  g_released++;
}

/* Y = X * W + B, with W and B constants: X f32[N, 2], W f32[2, 3] (adopted), B f32[3] (copied).
 * Returns the program (NULL on failure). */
static plaidml_program* affine_program(const float* w) {
  plaidml_builder* b = NULL;
  plaidml_value x, wv, bv, y;
  plaidml_expr i, j, k, n, three;
  plaidml_contraction* c = NULL;
  plaidml_program* p = NULL;
  const char* x_dims[2] = {"N", "2"};
  const int64_t w_dims[2] = {2, 3};
  const int64_t b_dims[1] = {3};
  const float bias[3] = {0.5f, -1.0f, 2.0f};
  CHECK_OK(plaidml_builder_create("affine", &b));
  CHECK_OK(plaidml_builder_add_input(b, "X", 2, x_dims, PLAIDML_DTYPE_FLOAT32, &x));
  CHECK_OK(plaidml_builder_add_constant(b, "W", PLAIDML_DTYPE_FLOAT32, 2, w_dims, w,
                                        6 * sizeof(float), count_release, NULL, &wv));
  CHECK_OK(plaidml_builder_add_constant(b, "B", PLAIDML_DTYPE_FLOAT32, 1, b_dims, bias,
                                        sizeof bias, NULL, NULL, &bv));
  CHECK_OK(plaidml_expr_index(b, "i", &i));
  CHECK_OK(plaidml_expr_index(b, "j", &j));
  CHECK_OK(plaidml_expr_index(b, "k", &k));
  CHECK_OK(plaidml_expr_dim(b, "N", &n));
  CHECK_OK(plaidml_expr_int(b, 3, &three));
  CHECK_OK(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, &c));
  {
    plaidml_expr out_idx[2], out_size[2], x_idx[2], w_idx[2];
    out_idx[0] = i; out_idx[1] = j; out_size[0] = n; out_size[1] = three;
    x_idx[0] = i; x_idx[1] = k; w_idx[0] = k; w_idx[1] = j;
    CHECK_OK(plaidml_contraction_set_output(c, 2, out_idx, out_size));
    CHECK_OK(plaidml_contraction_add_input(c, x, 2, x_idx));
    CHECK_OK(plaidml_contraction_add_input(c, wv, 2, w_idx));
  }
  CHECK_OK(plaidml_builder_add_contraction(b, c, &y));
  plaidml_contraction_destroy(c);
  {
    plaidml_value sum_operands[2];
    int64_t size = 0;
    sum_operands[0] = y;
    sum_operands[1] = bv;
    CHECK_OK(plaidml_builder_call(b, "add", 2, sum_operands, 0, NULL, &y));
    /* Known while building: the fixed 2 of X, the constant's 3; not the symbolic N. */
    CHECK_OK(plaidml_builder_value_size(b, x, 1, &size));
    CHECK(size == 2);
    CHECK_OK(plaidml_builder_value_size(b, y, 1, &size));
    CHECK(size == 3);
    CHECK_OK(plaidml_builder_value_size(b, y, 0, &size));
    CHECK(size == -1);
    CHECK_ERR(plaidml_builder_value_size(b, y, 2, &size), PLAIDML_STATUS_INVALID_ARGUMENT,
              "axis 2 is out of range");
  }
  CHECK_OK(plaidml_builder_add_output(b, "Y", y));
  CHECK_OK(plaidml_builder_build(b, &p));
  plaidml_builder_destroy(b);
  return p;
}

static void run_affine(plaidml_context* ctx, plaidml_program* p, const float* x, int64_t rows,
                       const float* w) {
  const int64_t dims[2] = {rows, 2};
  plaidml_buffer* in = NULL;
  plaidml_buffer* out = NULL;
  float got[12], want[12];
  int64_t r, col;
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, x,
                                           (size_t)rows * 2 * sizeof(float), &in));
  CHECK_OK(plaidml_execute(ctx, p, 1, NULL, &in, 1, NULL, &out));
  CHECK_OK(plaidml_buffer_read(out, got, (size_t)rows * 3 * sizeof(float)));
  for (r = 0; r < rows; ++r) {
    const float bias[3] = {0.5f, -1.0f, 2.0f};
    for (col = 0; col < 3; ++col) {
      want[r * 3 + col] = x[r * 2] * w[col] + x[r * 2 + 1] * w[3 + col] + bias[col];
    }
  }
  CHECK(harness_close(got, want, (size_t)rows * 3, 1e-5f));
  plaidml_buffer_destroy(in);
  plaidml_buffer_destroy(out);
}

static plaidml_stats stats_of(plaidml_context* ctx) {
  plaidml_stats s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  CHECK_OK(plaidml_context_stats(ctx, &s));
  return s;
}

static void test_constants_run_and_stay_resident(void) {
  plaidml_context* ctx = NULL;
  const float w[6] = {1, 2, 3, 4, 5, 6};
  const float x2[4] = {1, -1, 0.5f, 2};
  const float x3[6] = {1, 0, 0, 1, 2, 3};
  plaidml_program* p;
  plaidml_stats s;
  size_t count = 0;
  uint64_t bytes = 0;
  g_released = 0;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  p = affine_program(w);
  if (!p || !ctx) return;
  CHECK(g_released == 0); /* the program still holds W */
  CHECK_OK(plaidml_program_constants(p, &count, &bytes));
  CHECK(count == 2 && bytes == 9 * sizeof(float));
  run_affine(ctx, p, x2, 2, w);
  run_affine(ctx, p, x2, 2, w);
  run_affine(ctx, p, x3, 3, w); /* a new shape: compiles again, uploads nothing again */
  s = stats_of(ctx);
  CHECK(s.constant_uploads == 2);
  CHECK(s.constant_bytes == (int64_t)(9 * sizeof(float)));
  CHECK(s.compiles == 2);
  /* The constants are not part of the shape key: compile takes the input's shape only. */
  {
    const int64_t dims[2] = {5, 2};
    plaidml_tensor_shape shape;
    shape.dtype = PLAIDML_DTYPE_FLOAT32;
    shape.rank = 2;
    shape.dims = dims;
    CHECK_OK(plaidml_compile(ctx, p, 1, NULL, &shape));
  }
  plaidml_program_destroy(p);
  CHECK(g_released == 1);
  plaidml_context_destroy(ctx);
}

/* The CPU device reads 64-byte aligned constants in place, never a second copy: an adopted
 * weight changed behind plaidml's back (which the API forbids users) shows in the next execute. */
static void test_cpu_reads_constants_in_place(void) {
  plaidml_context* ctx = NULL;
  float w[6] __attribute__((aligned(64))) = {1, 2, 3, 4, 5, 6};
  const float x2[4] = {1, -1, 0.5f, 2};
  plaidml_program* p;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  p = affine_program(w);
  if (!p || !ctx) return;
  run_affine(ctx, p, x2, 2, w);
  w[0] = 10;
  w[5] = -1;
  run_affine(ctx, p, x2, 2, w);
  CHECK(stats_of(ctx).constant_uploads == 2); /* "uploaded" once: wrapped, not copied */
  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
}

static void test_fixed_dims(void) {
  plaidml_context* ctx = NULL;
  plaidml_program* p = NULL;
  plaidml_buffer* in = NULL;
  plaidml_buffer* out = NULL;
  const int64_t bad[2] = {4, 3};
  const float data[12] = {0};
  const float w[6] = {1, 2, 3, 4, 5, 6};
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  size_t rank = 0;
  const char* dim = NULL;
  p = affine_program(w);
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (!p || !ctx) return;
  CHECK_OK(plaidml_program_input_type(p, 0, &dtype, &rank));
  CHECK(dtype == PLAIDML_DTYPE_FLOAT32 && rank == 2);
  CHECK_OK(plaidml_program_input_dim(p, 0, 0, &dim));
  CHECK(dim && strcmp(dim, "N") == 0);
  CHECK_OK(plaidml_program_input_dim(p, 0, 1, &dim));
  CHECK(dim && strcmp(dim, "2") == 0);
  CHECK_ERR(plaidml_program_input_dim(p, 0, 2, &dim), PLAIDML_STATUS_INVALID_ARGUMENT,
            "axis 2 is out of range for input 'X' of rank 2");
  CHECK_ERR(plaidml_program_input_type(p, 1, &dtype, &rank), PLAIDML_STATUS_INVALID_ARGUMENT,
            "input index 1 is out of range (the program has 1)");
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, bad, data, sizeof data,
                                           &in));
  CHECK_ERR(plaidml_execute(ctx, p, 1, NULL, &in, 1, NULL, &out), PLAIDML_STATUS_TYPE_ERROR,
            "input 'X' has size 2 at axis 1, but was given shape f32[4, 3]");
  plaidml_buffer_destroy(in);
  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
}

static void test_printing(void) {
  plaidml_builder* b = NULL;
  plaidml_value small, large, sum;
  plaidml_program* p = NULL;
  char* text = NULL;
  const int32_t values[3] = {7, -2, 9};
  const int64_t small_dims[1] = {3};
  const int64_t large_dims[1] = {20};
  float zeros[20];
  memset(zeros, 0, sizeof zeros);
  CHECK_OK(plaidml_builder_create("print", &b));
  CHECK_OK(plaidml_builder_add_constant(b, "S", PLAIDML_DTYPE_INT32, 1, small_dims, values,
                                        sizeof values, NULL, NULL, &small));
  CHECK_OK(plaidml_builder_add_constant(b, "L", PLAIDML_DTYPE_FLOAT32, 1, large_dims, zeros,
                                        sizeof zeros, NULL, NULL, &large));
  {
    plaidml_value ops[2];
    ops[0] = small;
    ops[1] = large;
    CHECK_ERR(plaidml_builder_call(b, "add", 2, ops, 0, NULL, NULL),
              PLAIDML_STATUS_INVALID_ARGUMENT, "NULL");
    ops[1] = small;
    CHECK_OK(plaidml_builder_call(b, "add", 2, ops, 0, NULL, &sum));
  }
  CHECK_OK(plaidml_builder_add_output(b, "O", sum));
  CHECK_OK(plaidml_builder_add_output(b, "P", large));
  CHECK_OK(plaidml_builder_build(b, &p));
  CHECK_OK(plaidml_program_print(p, &text));
  CHECK(text && strstr(text, "S = constant(i32[3], [7, -2, 9]);") != NULL);
  CHECK(text && strstr(text, "L = constant(f32[20], digest \"") != NULL);
  plaidml_string_destroy(text);
  plaidml_program_destroy(p);
  plaidml_builder_destroy(b);
}

static void test_errors(void) {
  plaidml_builder* b = NULL;
  plaidml_value v;
  const int64_t dims[2] = {2, 2};
  const int64_t negative[1] = {-1};
  const float data[4] = {1, 2, 3, 4};
  CHECK_OK(plaidml_builder_create("errors", &b));
  g_released = 0;
  CHECK_ERR(plaidml_builder_add_constant(b, "C", PLAIDML_DTYPE_FLOAT32, 2, dims, data, 12,
                                         count_release, NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT,
            "byte_size is 12, but a constant of shape f32[2, 2] holds 16 bytes");
  CHECK(g_released == 1); /* released on failure too */
  CHECK_ERR(plaidml_builder_add_constant(b, "C", PLAIDML_DTYPE_FLOAT32, 2, dims, NULL, 16, NULL,
                                         NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT, "argument 'data' is NULL");
  CHECK_ERR(plaidml_builder_add_constant(b, "C", 99, 2, dims, data, 16, NULL, NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT, "99 is not a PLAIDML_DTYPE_* value");
  CHECK_ERR(plaidml_builder_add_constant(b, "C", PLAIDML_DTYPE_FLOAT32, 1, negative, data, 16,
                                         NULL, NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT, "-1");
  CHECK_OK(plaidml_builder_add_constant(b, "C", PLAIDML_DTYPE_FLOAT32, 2, dims, data, 16, NULL,
                                        NULL, &v));
  g_released = 0;
  CHECK_ERR(plaidml_builder_add_constant(b, "C", PLAIDML_DTYPE_FLOAT32, 2, dims, data, 16,
                                         count_release, NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT, "duplicate name 'C' for a constant");
  CHECK(g_released == 1);
  CHECK_ERR(plaidml_builder_add_constant(NULL, "C", PLAIDML_DTYPE_FLOAT32, 2, dims, data, 16,
                                         NULL, NULL, &v),
            PLAIDML_STATUS_INVALID_ARGUMENT, "argument 'builder' is NULL");
  plaidml_builder_destroy(b);
}

static void test_set_last_error(void) {
  CHECK(plaidml_set_last_error(PLAIDML_STATUS_UNSUPPORTED, "node 'n1' (Foo): unsupported") ==
        PLAIDML_STATUS_UNSUPPORTED);
  CHECK(strcmp(plaidml_last_error_message(), "node 'n1' (Foo): unsupported") == 0);
  CHECK(plaidml_set_last_error(PLAIDML_STATUS_INTERNAL, NULL) == PLAIDML_STATUS_INTERNAL);
  CHECK(strcmp(plaidml_last_error_message(), "") == 0);
}

int main(void) {
  test_constants_run_and_stay_resident();
  test_cpu_reads_constants_in_place();
  test_fixed_dims();
  test_printing();
  test_errors();
  test_set_last_error();
  return harness_finish();
}
