/* A tiny C99 test harness for the C ABI tests: counts checks and prints "N passed, N failed". */
#ifndef PLAIDML_TESTS_CAPI_HARNESS_H_
#define PLAIDML_TESTS_CAPI_HARNESS_H_

/* plaidml.h first: it must be self-contained. */
#include <math.h>
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <string.h>

static int g_passed = 0;
static int g_failed = 0;

static inline void harness_record(int ok, const char* file, int line, const char* what) {
  if (ok) {
    g_passed++;
  } else {
    g_failed++;
    fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
  }
}

/* A plain condition. */
#define CHECK(cond) harness_record((cond) != 0, __FILE__, __LINE__, #cond)

/* A call that must succeed; prints the error message when it does not. */
#define CHECK_OK(call)                                                                \
  do {                                                                                \
    plaidml_status check_ok_status_ = (call);                                         \
    if (check_ok_status_ != PLAIDML_STATUS_OK) {                                      \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call,       \
              plaidml_status_name(check_ok_status_), plaidml_last_error_message());   \
    }                                                                                 \
    harness_record(check_ok_status_ == PLAIDML_STATUS_OK, __FILE__, __LINE__, #call); \
  } while (0)

/* A call that must fail with status code and a last error message containing substring. */
#define CHECK_ERR(call, code, substring)                                                          \
  do {                                                                                            \
    plaidml_status check_err_status_ = (call);                                                    \
    const char* check_err_message_ = plaidml_last_error_message();                                \
    int check_err_ok_ =                                                                           \
        check_err_status_ == (code) && strstr(check_err_message_, (substring)) != NULL;           \
    if (!check_err_ok_) {                                                                         \
      fprintf(stderr, "%s:%d: %s: expected %s with \"%s\", got %s: \"%s\"\n", __FILE__, __LINE__, \
              #call, plaidml_status_name(code), (substring),                                      \
              plaidml_status_name(check_err_status_), check_err_message_);                        \
    }                                                                                             \
    harness_record(check_err_ok_, __FILE__, __LINE__, #call);                                     \
  } while (0)

/* Two float arrays equal within tol. */
static inline int harness_close(const float* got, const float* want, size_t n, float tol) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > tol) {
      fprintf(stderr, "  element %zu: got %g, want %g\n", i, (double)got[i], (double)want[i]);
      return 0;
    }
  }
  return 1;
}

/* C[i, j : M, N] = +(A[i, k] * B[k, j]) added to b through builder calls (dims M, K, N must be
 * declared by A and B); the product goes to *out_c. */
static inline void harness_add_matmul(plaidml_builder* b, plaidml_value A, plaidml_value B,
                                      plaidml_value* out_c) {
  plaidml_contraction* c = NULL;
  plaidml_expr i = {0}, j = {0}, k = {0}, M = {0}, N = {0};
  plaidml_expr out_idx[2], sizes[2], a_idx[2], b_idx[2];
  CHECK_OK(plaidml_expr_index(b, "i", &i));
  CHECK_OK(plaidml_expr_index(b, "j", &j));
  CHECK_OK(plaidml_expr_index(b, "k", &k));
  CHECK_OK(plaidml_expr_dim(b, "M", &M));
  CHECK_OK(plaidml_expr_dim(b, "N", &N));
  out_idx[0] = i;
  out_idx[1] = j;
  sizes[0] = M;
  sizes[1] = N;
  a_idx[0] = i;
  a_idx[1] = k;
  b_idx[0] = k;
  b_idx[1] = j;
  CHECK_OK(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, &c));
  CHECK_OK(plaidml_contraction_set_output(c, 2, out_idx, sizes));
  CHECK_OK(plaidml_contraction_add_input(c, A, 2, a_idx));
  CHECK_OK(plaidml_contraction_add_input(c, B, 2, b_idx));
  CHECK_OK(plaidml_builder_add_contraction(b, c, out_c));
  plaidml_contraction_destroy(c);
}

static inline int harness_finish(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

#endif /* PLAIDML_TESTS_CAPI_HARNESS_H_ */
