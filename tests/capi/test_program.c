/* Programs from Tile text and from builder calls: names, printing, round trips, and the
 * user-facing errors of parsing and building. */
#include <stdlib.h>

#include "harness.h"

static const char* kMatmul =
    "function (A[M, K], B[K, N]) -> (C) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "}\n";

/* Prints program and returns the malloc'd text (NULL on failure). */
static char* print(const plaidml_program* program) {
  char* text = NULL;
  CHECK_OK(plaidml_program_print(program, &text));
  return text;
}

static void test_names(void) {
  plaidml_program* p = NULL;
  size_t n = 0;
  const char* name = NULL;
  CHECK_OK(
      plaidml_program_from_tile("function (X[N], Y[N]) -> (S, D) { S = X + Y; D = X - Y; }", &p));
  if (!p) return;
  CHECK_OK(plaidml_program_input_count(p, &n));
  CHECK(n == 2);
  CHECK_OK(plaidml_program_input_name(p, 0, &name));
  CHECK(strcmp(name, "X") == 0);
  CHECK_OK(plaidml_program_input_name(p, 1, &name));
  CHECK(strcmp(name, "Y") == 0);
  CHECK_OK(plaidml_program_output_count(p, &n));
  CHECK(n == 2);
  CHECK_OK(plaidml_program_output_name(p, 0, &name));
  CHECK(strcmp(name, "S") == 0);
  CHECK_OK(plaidml_program_output_name(p, 1, &name));
  CHECK(strcmp(name, "D") == 0);
  plaidml_program_destroy(p);
}

/* print(parse(t)) parses back to a program that prints the same text. */
static void round_trip(const char* tile) {
  plaidml_program* first = NULL;
  plaidml_program* second = NULL;
  char* text1 = NULL;
  char* text2 = NULL;
  CHECK_OK(plaidml_program_from_tile(tile, &first));
  if (!first) return;
  text1 = print(first);
  CHECK_OK(plaidml_program_from_tile(text1, &second));
  if (second) text2 = print(second);
  CHECK(text1 != NULL && text2 != NULL && strcmp(text1, text2) == 0);
  plaidml_string_destroy(text1);
  plaidml_string_destroy(text2);
  plaidml_program_destroy(first);
  plaidml_program_destroy(second);
}

static void test_round_trips(void) {
  round_trip(kMatmul);
  round_trip("function (I[N]) -> (S) { S[i : N] = +(I[k]), i - k < N; }");
  round_trip("function (I[X, Y]) -> (O) { O[x : (X + 1) / 2] = >(I[2 * x + i, j]), i < 2; }");
  round_trip("function (A[N], B[N]) -> (R) { R = relu(A * 2.5 + B) / sqrt(B); }");
  round_trip("function (A[N]) -> (R) { R = as_int(A, 32); }");
  round_trip("function (A[N], B[M]) -> (R) { assert broadcastable(N, M), \"a \\\"q\\\" {0}\", N;"
             " R = A + B; }");
}

/* The builder makes the same program as the text: both print identically. */
static void test_builder_matches_tile(void) {
  plaidml_builder* b = NULL;
  plaidml_program* built = NULL;
  plaidml_program* parsed = NULL;
  const char* a_dims[2] = {"M", "K"};
  const char* b_dims[2] = {"K", "N"};
  plaidml_value A = {0}, B = {0}, C = {0};
  char* built_text = NULL;
  char* parsed_text = NULL;
  CHECK_OK(plaidml_builder_create("matmul", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 2, a_dims, PLAIDML_DTYPE_INVALID, &A));
  CHECK_OK(plaidml_builder_add_input(b, "B", 2, b_dims, PLAIDML_DTYPE_INVALID, &B));
  harness_add_matmul(b, A, B, &C);
  CHECK_OK(plaidml_builder_add_output(b, "C", C));
  CHECK_OK(plaidml_builder_build(b, &built));
  plaidml_builder_destroy(b);
  CHECK_OK(plaidml_program_from_tile(kMatmul, &parsed));
  if (built) built_text = print(built);
  if (parsed) parsed_text = print(parsed);
  CHECK(built_text && parsed_text && strcmp(built_text, parsed_text) == 0);
  if (built_text && parsed_text && strcmp(built_text, parsed_text) != 0) {
    fprintf(stderr, "built:\n%s\nparsed:\n%s\n", built_text, parsed_text);
  }
  plaidml_string_destroy(built_text);
  plaidml_string_destroy(parsed_text);
  plaidml_program_destroy(built);
  plaidml_program_destroy(parsed);
}

static void test_parse_errors(void) {
  plaidml_program* p = NULL;
  CHECK_ERR(plaidml_program_from_tile("function (A[N]) -> (B) {\n  B = exp(A)\n}\n", &p),
            PLAIDML_STATUS_PARSE_ERROR, "3:1: expected ';' after statement, found '}'");
  CHECK_ERR(plaidml_program_from_tile("function (A[N]) -> (B) {\n  B = foo(A);\n}\n", &p),
            PLAIDML_STATUS_NOT_FOUND, "2:7: unknown function 'foo'");
  CHECK_ERR(plaidml_program_from_tile("function (A[N]) -> (B) {\n  B = exp(Q);\n}\n", &p),
            PLAIDML_STATUS_NOT_FOUND, "2:11: unknown tensor 'Q'");
  CHECK_ERR(plaidml_program_from_tile("function (A[N] -> (B) { B = A; }", &p),
            PLAIDML_STATUS_PARSE_ERROR, "1:16: expected ',' or ')' in the input list");
  CHECK(p == NULL);
}

static void test_builder_errors(void) {
  plaidml_builder* b = NULL;
  plaidml_contraction* c = NULL;
  plaidml_value A = {0}, R = {0};
  plaidml_expr i = {0}, k = {0}, N = {0};
  const char* dims[1] = {"N"};
  CHECK_OK(plaidml_builder_create("errors", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 1, dims, PLAIDML_DTYPE_FLOAT32, &A));
  CHECK_ERR(plaidml_builder_add_input(b, "A", 1, dims, PLAIDML_DTYPE_FLOAT32, &R),
            PLAIDML_STATUS_INVALID_ARGUMENT, "'A'");
  CHECK_ERR(plaidml_builder_call(b, "frobnicate", 1, &A, 0, NULL, &R), PLAIDML_STATUS_NOT_FOUND,
            "unknown function 'frobnicate'");
  CHECK_ERR(plaidml_builder_call(b, "add", 1, &A, 0, NULL, &R), PLAIDML_STATUS_INVALID_ARGUMENT,
            "plaidml_builder_call");
  CHECK_OK(plaidml_expr_index(b, "i", &i));
  CHECK_OK(plaidml_expr_index(b, "k", &k));
  CHECK_OK(plaidml_expr_dim(b, "N", &N));
  CHECK_OK(plaidml_contraction_create(b, PLAIDML_AGG_ASSIGN, PLAIDML_COMB_NONE, &c));
  CHECK_OK(plaidml_contraction_set_output(c, 1, &i, &N));
  CHECK_OK(plaidml_contraction_add_input(c, A, 1, &k));
  CHECK_ERR(plaidml_builder_add_contraction(b, c, &R), PLAIDML_STATUS_INVALID_ARGUMENT,
            "index k is not in the output of an assign contraction");
  plaidml_contraction_destroy(c);
  CHECK_OK(plaidml_builder_call(b, "exp", 1, &A, 0, NULL, &R));
  CHECK_OK(plaidml_builder_add_output(b, "R", R));
  CHECK_ERR(plaidml_builder_add_output(b, "R", A), PLAIDML_STATUS_INVALID_ARGUMENT, "'R'");
  plaidml_builder_destroy(b);
}

/* plaidml_builder_add_assertion: printed as Tile `assert`; decided at once for literals. */
static void test_builder_assertion(void) {
  plaidml_builder* b = NULL;
  plaidml_program* p = NULL;
  plaidml_value A = {0}, B = {0}, R = {0};
  plaidml_expr N = {0}, M = {0}, two = {0}, three = {0}, args[2];
  const char* da[1] = {"N"};
  const char* db[1] = {"M"};
  char* text = NULL;
  CHECK_OK(plaidml_builder_create("asserts", &b));
  CHECK_OK(plaidml_builder_add_input(b, "A", 1, da, PLAIDML_DTYPE_FLOAT32, &A));
  CHECK_OK(plaidml_builder_add_input(b, "B", 1, db, PLAIDML_DTYPE_FLOAT32, &B));
  CHECK_OK(plaidml_expr_dim(b, "N", &N));
  CHECK_OK(plaidml_expr_dim(b, "M", &M));
  CHECK_OK(plaidml_expr_int(b, 2, &two));
  CHECK_OK(plaidml_expr_int(b, 3, &three));
  args[0] = N;
  args[1] = M;
  CHECK_OK(plaidml_builder_add_assertion(b, PLAIDML_ASSERT_EQ, N, M, "{0} vs {1}", 2, args));
  CHECK_ERR(plaidml_builder_add_assertion(b, PLAIDML_ASSERT_GE, two, three, "{0} < 3", 1, &two),
            PLAIDML_STATUS_TYPE_ERROR, "2 < 3");
  CHECK_ERR(plaidml_builder_add_assertion(b, 99, N, M, "m", 0, NULL),
            PLAIDML_STATUS_INVALID_ARGUMENT, "unknown assertion operator 99");
  CHECK_ERR(plaidml_builder_add_assertion(b, PLAIDML_ASSERT_EQ, N, M, NULL, 0, NULL),
            PLAIDML_STATUS_INVALID_ARGUMENT, "message");
  CHECK_OK(plaidml_builder_call(b, "add", 2, (plaidml_value[]){A, B}, 0, NULL, &R));
  CHECK_OK(plaidml_builder_add_output(b, "R", R));
  CHECK_OK(plaidml_builder_build(b, &p));
  if (p) text = print(p);
  CHECK(text != NULL && strstr(text, "assert N == M, \"{0} vs {1}\", N, M;") != NULL);
  plaidml_string_destroy(text);
  plaidml_program_destroy(p);
  plaidml_builder_destroy(b);
}

int main(void) {
  test_names();
  test_round_trips();
  test_builder_matches_tile();
  test_parse_errors();
  test_builder_errors();
  test_builder_assertion();
  return harness_finish();
}
