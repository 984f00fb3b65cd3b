/* The op library and gradient entry points from C99: attribute maps, plaidml_builder_op, the op
 * list, symbolic dims of builder values, plaidml_program_gradient; every NULL and misuse path. */
#include <stdlib.h>

#include "harness.h"

#define INV PLAIDML_STATUS_INVALID_ARGUMENT

static void test_attrs(void) {
  plaidml_attrs* attrs = NULL;
  int64_t list[2] = {1, 2};
  CHECK_ERR(plaidml_attrs_create(NULL), INV, "'out_attrs' is NULL");
  CHECK_OK(plaidml_attrs_create(&attrs));
  CHECK_OK(plaidml_attrs_set_int(attrs, "axis", -1));
  CHECK_OK(plaidml_attrs_set_int(attrs, "axis", 0)); /* replaces */
  CHECK_OK(plaidml_attrs_set_ints(attrs, "strides", 2, list));
  CHECK_OK(plaidml_attrs_set_ints(attrs, "empty", 0, NULL));
  CHECK_OK(plaidml_attrs_set_float(attrs, "alpha", 0.5));
  CHECK_OK(plaidml_attrs_set_string(attrs, "padding", "same_upper"));
  CHECK_ERR(plaidml_attrs_set_int(NULL, "axis", 1), INV, "'attrs' is NULL");
  CHECK_ERR(plaidml_attrs_set_int(attrs, NULL, 1), INV, "'name' is NULL");
  CHECK_ERR(plaidml_attrs_set_int(attrs, "", 1), INV, "the attribute name is empty");
  CHECK_ERR(plaidml_attrs_set_ints(attrs, "s", 2, NULL), INV, "'values' is NULL");
  CHECK_ERR(plaidml_attrs_set_ints(NULL, "s", 0, NULL), INV, "'attrs' is NULL");
  CHECK_ERR(plaidml_attrs_set_float(NULL, "a", 1.0), INV, "'attrs' is NULL");
  CHECK_ERR(plaidml_attrs_set_float(attrs, NULL, 1.0), INV, "'name' is NULL");
  CHECK_ERR(plaidml_attrs_set_string(attrs, "p", NULL), INV, "'value' is NULL");
  CHECK_ERR(plaidml_attrs_set_string(NULL, "p", "x"), INV, "'attrs' is NULL");
  plaidml_attrs_destroy(attrs);
  plaidml_attrs_destroy(NULL);
}

static void test_op_list_and_misuse(void) {
  size_t count = 0, i;
  const char* name = NULL;
  plaidml_builder* b = NULL;
  plaidml_value x, out, bad;
  bad.id = 4242;
  CHECK_ERR(plaidml_op_count(NULL), INV, "'out_count' is NULL");
  CHECK_OK(plaidml_op_count(&count));
  for (i = 0; i < count; ++i) {
    CHECK_OK(plaidml_op_name(i, &name));
    CHECK(name != NULL && name[0] != '\0');
  }
  CHECK_ERR(plaidml_op_name(count, &name), INV, "is out of range");
  CHECK_ERR(plaidml_op_name(0, NULL), INV, "'out_name' is NULL");
  CHECK_ERR(plaidml_function_count(NULL), INV, "'out_count' is NULL");
  CHECK_OK(plaidml_function_count(&count));
  CHECK(count > 50);
  CHECK_OK(plaidml_function_name(0, &name));
  CHECK(strcmp(name, "add") == 0);
  CHECK_OK(plaidml_function_name(count - 1, &name));
  CHECK(name != NULL && name[0] != '\0');
  CHECK_ERR(plaidml_function_name(count, &name), INV, "function index");
  CHECK_ERR(plaidml_function_name(0, NULL), INV, "'out_name' is NULL");

  CHECK_OK(plaidml_builder_create("ops", &b));
  CHECK_OK(plaidml_builder_add_input(b, "X", 1, NULL, PLAIDML_DTYPE_FLOAT32, &x));
  CHECK_ERR(plaidml_builder_op(NULL, "relu", 1, &x, NULL, &out), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_op(b, NULL, 1, &x, NULL, &out), INV, "'op' is NULL");
  CHECK_ERR(plaidml_builder_op(b, "relu", 1, NULL, NULL, &out), INV, "'operands' is NULL");
  CHECK_ERR(plaidml_builder_op(b, "relu", 1, &x, NULL, NULL), INV, "'out_value' is NULL");
  CHECK_ERR(plaidml_builder_op(b, "relu", 1, &bad, NULL, &out), INV,
            "tensor value 4242 was not made by this builder");
  CHECK_ERR(plaidml_builder_op(b, "no_such_op", 1, &x, NULL, &out), PLAIDML_STATUS_NOT_FOUND,
            "unknown op 'no_such_op'");
  plaidml_builder_destroy(b);
}

static void test_value_dims(void) {
  plaidml_builder* b = NULL;
  plaidml_value x, y, any, sum, bad;
  plaidml_expr d;
  size_t rank = 99;
  const char* dims[2] = {"M", NULL};
  bad.id = 777;
  CHECK_OK(plaidml_builder_create("dims", &b));
  CHECK_OK(plaidml_builder_add_input(b, "X", 2, dims, PLAIDML_DTYPE_INVALID, &x));
  CHECK_OK(plaidml_builder_add_input(b, "Y", 1, NULL, PLAIDML_DTYPE_INVALID, &y));
  CHECK_OK(plaidml_builder_add_input(b, "Z", PLAIDML_RANK_UNKNOWN, NULL, 0, &any));
  CHECK_OK(plaidml_builder_call(b, "add", 2, (plaidml_value[]){x, y}, 0, NULL, &sum));
  CHECK_OK(plaidml_builder_value_rank(b, sum, &rank));
  CHECK(rank == 2);
  CHECK_OK(plaidml_builder_value_dim(b, x, 0, &d));
  CHECK_ERR(plaidml_builder_value_dim(b, x, 2, &d), INV, "axis 2 is out of range for rank 2");
  CHECK_ERR(plaidml_builder_value_rank(b, any, &rank), PLAIDML_STATUS_TYPE_ERROR,
            "input 'Z' has an unknown rank");
  CHECK_ERR(plaidml_builder_value_rank(NULL, x, &rank), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_value_rank(b, x, NULL), INV, "'out_rank' is NULL");
  CHECK_ERR(plaidml_builder_value_rank(b, bad, &rank), INV, "was not made by this builder");
  CHECK_ERR(plaidml_builder_value_dim(NULL, x, 0, &d), INV, "'builder' is NULL");
  CHECK_ERR(plaidml_builder_value_dim(b, x, 0, NULL), INV, "'out_expr' is NULL");
  plaidml_builder_destroy(b);
}

static void test_gradient_misuse(void) {
  plaidml_program* p = NULL;
  plaidml_program* g = NULL;
  const char* wrt[1] = {"X"};
  const char* null_name[1] = {NULL};
  CHECK_OK(plaidml_program_from_tile("function (X[N]) -> (L) { L[] = +(X[i] * X[i]); }", &p));
  CHECK_ERR(plaidml_program_gradient(NULL, "L", 1, wrt, NULL, &g), INV, "'program' is NULL");
  CHECK_ERR(plaidml_program_gradient(p, NULL, 1, wrt, NULL, &g), INV, "'loss' is NULL");
  CHECK_ERR(plaidml_program_gradient(p, "L", 1, NULL, NULL, &g), INV, "'wrt_names' is NULL");
  CHECK_ERR(plaidml_program_gradient(p, "L", 1, wrt, NULL, NULL), INV, "'out_program' is NULL");
  CHECK_ERR(plaidml_program_gradient(p, "L", 1, null_name, NULL, &g), INV, "wrt_names[0] is NULL");
  CHECK_ERR(plaidml_program_gradient(p, "L", 1, wrt, null_name, &g), INV, "grad_names[0] is NULL");
  CHECK(g == NULL);
  plaidml_program_destroy(p);
}

/* softmax over axis 1 of [[0, ln 3], [0, 0]] is [[1/4, 3/4], [1/2, 1/2]] (hand-computed). */
static void test_op_runs_and_reports(void) {
  plaidml_context* ctx = NULL;
  plaidml_builder* b = NULL;
  plaidml_attrs* attrs = NULL;
  plaidml_program* p = NULL;
  plaidml_buffer* in[1] = {NULL};
  plaidml_buffer* out[1] = {NULL};
  plaidml_value x, y;
  const char* dims[2] = {"N", "C"};
  const int64_t shape[2] = {2, 2};
  float xs[4], got[4] = {0, 0, 0, 0};
  const float want[4] = {0.25f, 0.75f, 0.5f, 0.5f};
  xs[0] = 0, xs[1] = (float)log(3.0), xs[2] = 0, xs[3] = 0;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_OK(plaidml_builder_create("softmax", &b));
  CHECK_OK(plaidml_attrs_create(&attrs));
  CHECK_OK(plaidml_builder_add_input(b, "X", 2, dims, PLAIDML_DTYPE_FLOAT32, &x));
  CHECK_OK(plaidml_attrs_set_int(attrs, "axis", 2));
  CHECK_ERR(plaidml_builder_op(b, "softmax", 1, &x, attrs, &y), PLAIDML_STATUS_TYPE_ERROR,
            "softmax: attribute 'axis' is 2, out of range for rank 2");
  CHECK_OK(plaidml_attrs_set_string(attrs, "axis", "last"));
  CHECK_ERR(plaidml_builder_op(b, "softmax", 1, &x, attrs, &y), INV,
            "softmax: attribute 'axis' must be an integer, not a string");
  CHECK_OK(plaidml_attrs_set_int(attrs, "axis", -1));
  CHECK_OK(plaidml_attrs_set_float(attrs, "alpah", 1.0));
  CHECK_ERR(plaidml_builder_op(b, "softmax", 1, &x, attrs, &y), INV,
            "softmax: unknown attribute 'alpah'");
  plaidml_attrs_destroy(attrs);
  CHECK_OK(plaidml_attrs_create(&attrs));
  CHECK_OK(plaidml_attrs_set_int(attrs, "axis", 1));
  CHECK_OK(plaidml_builder_op(b, "softmax", 1, &x, attrs, &y));
  CHECK_OK(plaidml_builder_add_output(b, "Y", y));
  CHECK_OK(plaidml_builder_build(b, &p));
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, shape, xs, sizeof xs,
                                           &in[0]));
  CHECK_OK(plaidml_execute(ctx, p, 1, NULL, in, 1, NULL, out));
  if (out[0] != NULL) CHECK_OK(plaidml_buffer_read(out[0], got, sizeof got));
  CHECK(harness_close(got, want, 4, 1e-6f));
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_program_destroy(p);
  plaidml_attrs_destroy(attrs);
  plaidml_builder_destroy(b);
  plaidml_context_destroy(ctx);
}

/* L = sum(X * X): dL/dX = 2 X, run on the context's device. */
static void test_gradient_runs(void) {
  plaidml_context* ctx = NULL;
  plaidml_program *p = NULL, *g = NULL, *bad = NULL;
  plaidml_buffer* in[1] = {NULL};
  plaidml_buffer* out[2] = {NULL, NULL};
  const char* wrt[1] = {"X"};
  const char* names[1] = {"DX"};
  const char* outs[1] = {"DX"};
  const int64_t n = 3;
  const float xs[3] = {1.0f, -2.0f, 0.5f}, want[3] = {2.0f, -4.0f, 1.0f};
  float got[3] = {0, 0, 0};
  const char* name = NULL;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_OK(plaidml_program_from_tile(
      "function (X[N]) -> (L, S) { L[] = +(X[i] * X[i]); S = X * 2; }", &p));
  CHECK_OK(plaidml_program_gradient(p, "L", 1, wrt, names, &g));
  CHECK_OK(plaidml_program_output_name(g, 2, &name));
  CHECK(name != NULL && strcmp(name, "DX") == 0);
  CHECK_OK(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, &n, xs, sizeof xs,
                                           &in[0]));
  CHECK_OK(plaidml_execute(ctx, g, 1, NULL, in, 1, outs, out));
  if (out[0] != NULL) CHECK_OK(plaidml_buffer_read(out[0], got, sizeof got));
  CHECK(harness_close(got, want, 3, 1e-6f));
  CHECK_ERR(plaidml_program_gradient(p, "S", 1, wrt, NULL, &bad), PLAIDML_STATUS_TYPE_ERROR,
            "gradient: loss 'S' has rank 1; a gradient needs a scalar output");
  CHECK_ERR(plaidml_program_gradient(p, "Nope", 1, wrt, NULL, &bad), PLAIDML_STATUS_NOT_FOUND,
            "Nope");
  CHECK(bad == NULL);
  plaidml_buffer_destroy(out[0]);
  plaidml_buffer_destroy(in[0]);
  plaidml_program_destroy(g);
  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
}

int main(void) {
  test_attrs();
  test_op_runs_and_reports();
  test_gradient_runs();
  test_op_list_and_misuse();
  test_value_dims();
  test_gradient_misuse();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
