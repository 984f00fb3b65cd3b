/* The log level and the log callback: lines reach the callback with their level and user data,
 * the level filters them, and removing the callback stops them. */
#include <stdlib.h>

#include "harness.h"

struct LogRecord {
  int calls;
  int saw_compile_line;
  plaidml_log_level last_level;
};

static void on_log(void* user_data, plaidml_log_level level, const char* message) {
  struct LogRecord* record = (struct LogRecord*)user_data;
  record->calls++;
  record->last_level = level;
  if (strstr(message, "plan cache miss") != NULL) record->saw_compile_line = 1;
}

/* Compiles exp at a new shape each call (size n) so that the runtime logs a cache miss. */
static void compile_at(plaidml_context* ctx, const plaidml_program* p, int64_t n) {
  plaidml_tensor_shape shape;
  shape.dtype = PLAIDML_DTYPE_FLOAT32;
  shape.rank = 1;
  shape.dims = &n;
  CHECK_OK(plaidml_compile(ctx, p, 1, NULL, &shape));
}

int main(void) {
  struct LogRecord record = {0, 0, -1};
  plaidml_context* ctx = NULL;
  plaidml_program* p = NULL;
  int calls_before = 0;
  CHECK_OK(plaidml_context_create(NULL, &ctx));
  CHECK_OK(plaidml_program_from_tile("function (A[N]) -> (B) { B = exp(A); }", &p));
  if (!ctx || !p) return harness_finish();

  CHECK_OK(plaidml_set_log_callback(on_log, &record));
  CHECK_OK(plaidml_set_log_level(PLAIDML_LOG_DEBUG));
  compile_at(ctx, p, 3);
  CHECK(record.calls > 0);
  CHECK(record.saw_compile_line);
  CHECK(record.last_level == PLAIDML_LOG_DEBUG);

  /* Above the level: nothing arrives. */
  CHECK_OK(plaidml_set_log_level(PLAIDML_LOG_ERROR));
  calls_before = record.calls;
  compile_at(ctx, p, 4);
  CHECK(record.calls == calls_before);

  /* Removed: nothing arrives, even at a verbose level. */
  CHECK_OK(plaidml_set_log_callback(NULL, NULL));
  CHECK_OK(plaidml_set_log_level(PLAIDML_LOG_DEBUG));
  calls_before = record.calls;
  compile_at(ctx, p, 5);
  CHECK(record.calls == calls_before);
  CHECK_OK(plaidml_set_log_level(PLAIDML_LOG_WARN));

  plaidml_program_destroy(p);
  plaidml_context_destroy(ctx);
  return harness_finish();
}
