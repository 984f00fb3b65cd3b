/* Every entry point with a NULL handle and with a NULL out pointer: INVALID_ARGUMENT naming the
 * argument, never a crash. Also destroy(NULL), version, status names and dtype sizes. */
#include <stdlib.h>

#include "harness.h"

#define INV PLAIDML_STATUS_INVALID_ARGUMENT

static void test_basics(void) {
  char expected[64];
  size_t size = 0;
  snprintf(expected, sizeof(expected), "%d.%d.%d", PLAIDML_VERSION_MAJOR, PLAIDML_VERSION_MINOR,
           PLAIDML_VERSION_PATCH);
  CHECK(strcmp(plaidml_version(), expected) == 0);
  CHECK(strcmp(plaidml_status_name(PLAIDML_STATUS_OK), "PLAIDML_STATUS_OK") == 0);
  CHECK(strcmp(plaidml_status_name(PLAIDML_STATUS_NOT_FOUND), "PLAIDML_STATUS_NOT_FOUND") == 0);
  CHECK(strcmp(plaidml_status_name(PLAIDML_STATUS_IO_ERROR), "PLAIDML_STATUS_IO_ERROR") == 0);
  CHECK(strcmp(plaidml_status_name(999), "PLAIDML_STATUS_UNKNOWN") == 0);
  CHECK_OK(plaidml_dtype_size(PLAIDML_DTYPE_FLOAT32, &size));
  CHECK(size == 4);
  CHECK_OK(plaidml_dtype_size(PLAIDML_DTYPE_BOOL, &size));
  CHECK(size == 1);
  CHECK_OK(plaidml_dtype_size(PLAIDML_DTYPE_BFLOAT16, &size));
  CHECK(size == 2);
  CHECK_ERR(plaidml_dtype_size(PLAIDML_DTYPE_INVALID, &size), INV, "is not a PLAIDML_DTYPE_");
  CHECK_ERR(plaidml_dtype_size(77, &size), INV, "77 is not a PLAIDML_DTYPE_* value");
  CHECK_ERR(plaidml_dtype_size(PLAIDML_DTYPE_INT8, NULL), INV, "'out_size' is NULL");
  CHECK_ERR(plaidml_set_log_level(7), INV, "log level 7");
  CHECK_ERR(plaidml_set_log_level(-1), INV, "log level -1");

  /* destroy(NULL) does nothing */
  plaidml_context_options_destroy(NULL);
  plaidml_context_destroy(NULL);
  plaidml_program_destroy(NULL);
  plaidml_builder_destroy(NULL);
  plaidml_contraction_destroy(NULL);
  plaidml_buffer_destroy(NULL);
  plaidml_string_destroy(NULL);
  CHECK(1);
}

static void test_context_nulls(plaidml_context* ctx) {
  plaidml_context_options* opts = NULL;
  size_t count = 0;
  const char* str = NULL;
  bool flag = false;
  plaidml_stats stats;
  CHECK_ERR(plaidml_context_options_create(NULL), INV, "'out_options' is NULL");
  CHECK_ERR(plaidml_context_options_set_int(NULL, PLAIDML_CONTEXT_OPTION_NUM_THREADS, 1), INV,
            "plaidml_context_options_set_int: argument 'options' is NULL");
  CHECK_ERR(plaidml_context_options_set_string(NULL, PLAIDML_CONTEXT_OPTION_DEVICE, "cpu:0"), INV,
            "'options' is NULL");
  CHECK_OK(plaidml_context_options_create(&opts));
  CHECK_ERR(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_DEVICE, NULL), INV,
            "'value' is NULL");
  CHECK_ERR(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_NUM_THREADS, -2), INV,
            "PLAIDML_CONTEXT_OPTION_NUM_THREADS must be in 0..4096, got -2");
  CHECK_ERR(plaidml_context_options_set_int(opts, PLAIDML_CONTEXT_OPTION_DEVICE, 1), INV,
            "PLAIDML_CONTEXT_OPTION_DEVICE takes a string");
  CHECK_ERR(plaidml_context_options_set_string(opts, PLAIDML_CONTEXT_OPTION_NUM_THREADS, "2"), INV,
            "PLAIDML_CONTEXT_OPTION_NUM_THREADS takes an integer");
  CHECK_ERR(plaidml_context_options_set_int(opts, 999, 1), INV, "unknown context option key 999");
  CHECK_ERR(plaidml_context_options_set_string(opts, 998, "x"), INV,
            "unknown context option key 998");
  plaidml_context_options_destroy(opts);
  CHECK_ERR(plaidml_context_create(NULL, NULL), INV, "'out_context' is NULL");

  CHECK_ERR(plaidml_device_count(NULL, &count), INV, "'context' is NULL");
  CHECK_ERR(plaidml_device_count(ctx, NULL), INV, "'out_count' is NULL");
  CHECK_ERR(plaidml_device_id(NULL, 0, &str), INV, "'context' is NULL");
  CHECK_ERR(plaidml_device_id(ctx, 0, NULL), INV, "'out_id' is NULL");
  CHECK_ERR(plaidml_device_id(ctx, 1000, &str), INV, "device index 1000 is out of range");
  CHECK_ERR(plaidml_device_name(NULL, 0, &str), INV, "'context' is NULL");
  CHECK_ERR(plaidml_device_name(ctx, 0, NULL), INV, "'out_name' is NULL");
  CHECK_ERR(plaidml_device_name(ctx, 1000, &str), INV, "device index 1000 is out of range");
  CHECK_ERR(plaidml_device_available(NULL, 0, &flag, &str), INV, "'context' is NULL");
  CHECK_ERR(plaidml_device_available(ctx, 0, NULL, &str), INV, "'out_available' is NULL");
  CHECK_ERR(plaidml_device_available(ctx, 1000, &flag, NULL), INV, "out of range");
  CHECK_ERR(plaidml_context_select_device(NULL, "cpu:0"), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_select_device(ctx, NULL), INV, "'device_id' is NULL");
  CHECK_ERR(plaidml_context_device(NULL, &str), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_device(ctx, NULL), INV, "'out_device_id' is NULL");
  stats.struct_size = sizeof(stats);
  CHECK_ERR(plaidml_context_stats(NULL, &stats), INV, "'context' is NULL");
  CHECK_ERR(plaidml_context_stats(ctx, NULL), INV, "'out_stats' is NULL");
  stats.struct_size = 0;
  CHECK_ERR(plaidml_context_stats(ctx, &stats), INV, "struct_size is 0");
}

static void test_program_nulls(void) {
  plaidml_program* program = NULL;
  size_t count = 0;
  const char* name = NULL;
  char* text = NULL;
  CHECK_ERR(plaidml_program_from_tile(NULL, &program), INV, "'tile_text' is NULL");
  CHECK_ERR(plaidml_program_from_tile("function (A) -> (B) { B = A; }", NULL), INV,
            "'out_program' is NULL");
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = exp(A); }", &program));
  CHECK_ERR(plaidml_program_print(NULL, &text), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_print(program, NULL), INV, "'out_text' is NULL");
  CHECK_ERR(plaidml_program_input_count(NULL, &count), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_input_count(program, NULL), INV, "'out_count' is NULL");
  CHECK_ERR(plaidml_program_input_name(NULL, 0, &name), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_input_name(program, 0, NULL), INV, "'out_name' is NULL");
  CHECK_ERR(plaidml_program_input_name(program, 1, &name), INV,
            "input index 1 is out of range (the program has 1)");
  CHECK_ERR(plaidml_program_output_count(NULL, &count), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_output_count(program, NULL), INV, "'out_count' is NULL");
  CHECK_ERR(plaidml_program_output_name(NULL, 0, &name), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_output_name(program, 0, NULL), INV, "'out_name' is NULL");
  CHECK_ERR(plaidml_program_output_name(program, 5, &name), INV, "output index 5 is out of range");
  plaidml_program_destroy(program);
}

/* An integer expression stops at 1,000 levels: every walk of the tree recurses once per level,
 * and a caller chaining i + 1 + 1 + ... 100,000 times overflowed the stack. */
static void test_deep_expr(void) {
  plaidml_builder* b = NULL;
  plaidml_expr deep = {0}, one = {0};
  int level, failures = 0;
  CHECK_OK(plaidml_builder_create("deep", &b));
  CHECK_OK(plaidml_expr_index(b, "i", &deep));
  CHECK_OK(plaidml_expr_int(b, 1, &one));
  for (level = 1; level < 1000; ++level) {
    failures += plaidml_expr_binary(b, PLAIDML_EXPR_ADD, deep, one, &deep) != PLAIDML_STATUS_OK;
  }
  CHECK(failures == 0);
  CHECK_ERR(plaidml_expr_binary(b, PLAIDML_EXPR_ADD, deep, one, &deep), INV,
            "the expression is nested too deeply (1001 levels; at most 1000)");
  CHECK_ERR(plaidml_expr_neg(b, deep, &deep), INV,
            "the expression is nested too deeply (1001 levels; at most 1000)");
  plaidml_builder_destroy(b);
}

static void test_builder_nulls(void) {
  plaidml_builder* b = NULL;
  plaidml_builder* other = NULL;
  plaidml_contraction* c = NULL;
  plaidml_value v = {0};
  plaidml_value bad = {12345};
  plaidml_expr e = {0};
  plaidml_expr bad_e = {999};
  plaidml_program* program = NULL;
  CHECK_ERR(plaidml_builder_create("x", NULL), INV, "'out_builder' is NULL");
  CHECK_OK(plaidml_builder_create(NULL, &b));
  CHECK_OK(plaidml_builder_create("other", &other));
  CHECK_ERR(plaidml_builder_add_input(NULL, "A", 0, NULL, 0, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_add_input(b, NULL, 0, NULL, 0, &v), INV, "'name' is NULL");
  CHECK_ERR(plaidml_builder_add_input(b, "A", 0, NULL, 0, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_add_input(b, "A", 0, NULL, 42, &v), INV, "42 is not a PLAIDML_DTYPE");
  CHECK_ERR(plaidml_builder_add_input(b, "A", SIZE_MAX - 1, NULL, 0, &v), INV,
            "plaidml_builder_add_input: rank 18446744073709551614 is more than the 64 dimensions");
  CHECK_ERR(plaidml_builder_int_constant(NULL, 1, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_int_constant(b, 1, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_float_constant(NULL, 1.0, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_float_constant(b, 1.0, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_dim_constant(NULL, e, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_dim_constant(b, e, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_call(NULL, "exp", 1, &v, 0, NULL, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_call(b, NULL, 1, &v, 0, NULL, &v), INV, "'function' is NULL");
  CHECK_ERR(plaidml_builder_call(b, "exp", 1, NULL, 0, NULL, &v), INV, "'operands' is NULL");
  CHECK_ERR(plaidml_builder_call(b, "as_int", 1, &v, 1, NULL, &v), INV, "'int_args' is NULL");
  CHECK_ERR(plaidml_builder_call(b, "exp", 1, &v, 0, NULL, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_call(b, "exp", 1, &bad, 0, NULL, &v), INV,
            "tensor value 12345 was not made by this builder");
  CHECK_ERR(plaidml_builder_add_output(NULL, "R", v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_add_output(b, NULL, v), INV, "'name' is NULL");
  CHECK_ERR(plaidml_builder_add_output(b, "R", bad), INV, "was not made by this builder");
  CHECK_ERR(plaidml_builder_build(NULL, &program), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_build(b, NULL), INV, "'out_program' is NULL");
  CHECK_ERR(plaidml_builder_build(b, &program), INV, "the program has no outputs");

  CHECK_ERR(plaidml_expr_index(NULL, "i", &e), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_expr_index(b, NULL, &e), INV, "'name' is NULL");
  CHECK_ERR(plaidml_expr_index(b, "", &e), INV, "name must not be empty");
  CHECK_ERR(plaidml_expr_index(b, "i", NULL), INV, "'out_expr' is NULL");
  /* Found by fuzz_builder_calls: an index named like a dimension printed text that read back
     with a dimension in its place (fuzz/regressions/builder_calls/capitalised_index). */
  CHECK_ERR(plaidml_expr_index(b, "N", &e), INV,
            "plaidml_expr_index: 'N' is not an index name: one starts with a lowercase letter");
  CHECK_ERR(plaidml_expr_index(b, "i-1", &e), INV, "'i-1' is not an index name");
  CHECK_ERR(plaidml_expr_index(b, "_i", &e), INV, "'_i' is not an index name");
  CHECK_OK(plaidml_expr_index(b, "i_2B", &e));
  CHECK_ERR(plaidml_expr_dim(NULL, "N", &e), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_expr_dim(b, NULL, &e), INV, "'name' is NULL");
  CHECK_ERR(plaidml_expr_dim(b, "N", NULL), INV, "'out_expr' is NULL");
  CHECK_ERR(plaidml_expr_int(NULL, 1, &e), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_expr_int(b, 1, NULL), INV, "'out_expr' is NULL");
  CHECK_OK(plaidml_expr_int(b, 1, &e));
  CHECK_ERR(plaidml_expr_binary(NULL, PLAIDML_EXPR_ADD, e, e, &e), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_expr_binary(b, PLAIDML_EXPR_ADD, e, e, NULL), INV, "'out_expr' is NULL");
  CHECK_ERR(plaidml_expr_binary(b, 77, e, e, &e), INV, "unknown expression operator 77");
  CHECK_ERR(plaidml_expr_binary(b, PLAIDML_EXPR_ADD, e, bad_e, &e), INV,
            "integer expression 999 was not made by this builder");
  CHECK_ERR(plaidml_expr_neg(NULL, e, &e), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_expr_neg(b, e, NULL), INV, "'out_expr' is NULL");
  CHECK_ERR(plaidml_expr_neg(other, e, &e), INV, "was not made by this builder");

  CHECK_ERR(plaidml_contraction_create(NULL, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, &c), INV,
            "'builder' is NULL");
  CHECK_ERR(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, NULL), INV,
            "'out_contraction' is NULL");
  CHECK_ERR(plaidml_contraction_create(b, 0, PLAIDML_COMB_MUL, &c), INV, "unknown aggregation 0");
  CHECK_ERR(plaidml_contraction_create(b, PLAIDML_AGG_SUM, 9, &c), INV, "unknown combination 9");
  CHECK_ERR(plaidml_contraction_set_output(NULL, 0, NULL, NULL), INV, "'contraction' is NULL");
  CHECK_ERR(plaidml_contraction_add_input(NULL, v, 0, NULL), INV, "'contraction' is NULL");
  CHECK_ERR(plaidml_contraction_add_constraint(NULL, e, e), INV, "'contraction' is NULL");
  CHECK_ERR(plaidml_contraction_set_default(NULL, v), INV, "'contraction' is NULL");
  CHECK_OK(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_NONE, &c));
  CHECK_ERR(plaidml_contraction_set_output(c, 1, NULL, &e), INV, "'indices' is NULL");
  CHECK_ERR(plaidml_contraction_set_output(c, 1, &e, NULL), INV, "'sizes' is NULL");
  CHECK_ERR(plaidml_contraction_set_output(c, 1, &bad_e, &e), INV, "was not made by this builder");
  CHECK_ERR(plaidml_contraction_add_input(c, v, 1, NULL), INV, "'indices' is NULL");
  CHECK_ERR(plaidml_contraction_add_input(c, bad, 0, NULL), INV, "was not made by this builder");
  CHECK_ERR(plaidml_contraction_add_constraint(c, bad_e, e), INV, "was not made by this builder");
  CHECK_ERR(plaidml_contraction_set_default(c, bad), INV, "was not made by this builder");
  CHECK_ERR(plaidml_builder_add_contraction(NULL, c, &v), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_add_contraction(b, NULL, &v), INV, "'contraction' is NULL");
  CHECK_ERR(plaidml_builder_add_contraction(b, c, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_add_contraction(other, c, &v), INV,
            "the contraction was created for another builder");
  plaidml_contraction_destroy(c);
  plaidml_builder_destroy(other);
  plaidml_builder_destroy(b);
}

static void test_buffer_nulls(plaidml_context* ctx) {
  int64_t dims[2] = {2, 3};
  int64_t neg[2] = {2, -3};
  float data[6] = {0};
  plaidml_buffer* buf = NULL;
  plaidml_dtype dtype = 0;
  size_t n = 0;
  int64_t d = 0;
  CHECK_ERR(plaidml_buffer_create(NULL, PLAIDML_DTYPE_FLOAT32, 2, dims, &buf), INV,
            "'context' is NULL");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, NULL), INV,
            "'out_buffer' is NULL");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, NULL, &buf), INV,
            "'dims' is NULL");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, neg, &buf), INV,
            "dimension 1 has negative size -3");
  CHECK_ERR(plaidml_buffer_create(ctx, 0, 2, dims, &buf), INV, "0 is not a PLAIDML_DTYPE");
  /* A rank no tensor has is the caller's error, before any dim is read. */
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, SIZE_MAX, dims, &buf), INV,
            "plaidml_buffer_create: rank 18446744073709551615 is more than the 64 dimensions a "
            "tensor may have");
  CHECK_ERR(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 65, dims, &buf), INV,
            "rank 65 is more than the 64 dimensions");
  CHECK_ERR(plaidml_buffer_create_from_host(NULL, PLAIDML_DTYPE_FLOAT32, 2, dims, data, 24, &buf),
            INV, "'context' is NULL");
  CHECK_ERR(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, NULL, 24, &buf),
            INV, "'data' is NULL");
  CHECK_ERR(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, data, 24, NULL),
            INV, "'out_buffer' is NULL");
  CHECK_ERR(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, data, 20, &buf),
            INV, "size is 20 bytes but a f32[2, 3] buffer holds 24 bytes");
  CHECK(buf == NULL);
  CHECK_OK(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, &buf));
  CHECK_ERR(plaidml_buffer_write(NULL, data, 24), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_write(buf, NULL, 24), INV, "'data' is NULL");
  CHECK_ERR(plaidml_buffer_read(NULL, data, 24), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_read(buf, NULL, 24), INV, "'data' is NULL");
  CHECK_ERR(plaidml_buffer_dtype(NULL, &dtype), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_dtype(buf, NULL), INV, "'out_dtype' is NULL");
  CHECK_ERR(plaidml_buffer_rank(NULL, &n), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_rank(buf, NULL), INV, "'out_rank' is NULL");
  CHECK_ERR(plaidml_buffer_dim(NULL, 0, &d), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_dim(buf, 0, NULL), INV, "'out_size' is NULL");
  CHECK_ERR(plaidml_buffer_dim(buf, 2, &d), INV, "axis 2 is out of range for the buffer f32[2, 3]");
  CHECK_ERR(plaidml_buffer_byte_size(NULL, &n), INV, "'buffer' is NULL");
  CHECK_ERR(plaidml_buffer_byte_size(buf, NULL), INV, "'out_size' is NULL");
  plaidml_buffer_destroy(buf);
}

static void test_execute_nulls(plaidml_context* ctx) {
  plaidml_program* program = NULL;
  plaidml_tensor_shape shape;
  int64_t dims[1] = {4};
  const char* name = "A";
  plaidml_buffer* out[1] = {NULL};
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = exp(A); }", &program));
  shape.dtype = PLAIDML_DTYPE_FLOAT32;
  shape.rank = 1;
  shape.dims = dims;
  CHECK_ERR(plaidml_compile(NULL, program, 1, &name, &shape), INV, "'context' is NULL");
  CHECK_ERR(plaidml_compile(ctx, NULL, 1, &name, &shape), INV, "'program' is NULL");
  CHECK_ERR(plaidml_compile(ctx, program, 1, &name, NULL), INV, "'input_shapes' is NULL");
  CHECK_ERR(plaidml_execute(NULL, program, 0, NULL, NULL, 1, NULL, out), INV, "'context' is NULL");
  CHECK_ERR(plaidml_execute(ctx, NULL, 0, NULL, NULL, 1, NULL, out), INV, "'program' is NULL");
  CHECK_ERR(plaidml_execute(ctx, program, 1, &name, NULL, 1, NULL, out), INV, "'inputs' is NULL");
  CHECK_ERR(plaidml_execute(ctx, program, 0, NULL, NULL, 1, NULL, NULL), INV, "'outputs' is NULL");
  plaidml_program_destroy(program);
}

int main(void) {
  plaidml_context* ctx = NULL;
  test_basics();
  test_deep_expr();
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  if (ctx == NULL) return harness_finish();
  test_context_nulls(ctx);
  test_program_nulls();
  test_builder_nulls();
  test_buffer_nulls(ctx);
  test_execute_nulls(ctx);
  plaidml_context_destroy(ctx);
  return harness_finish();
}
