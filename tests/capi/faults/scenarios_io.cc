// Scenarios of files, the disk cache and error reporting (scenarios.h).
#include <cstdio>
#include <cstring>

#include "capi/faults/scenarios.h"

namespace plaidml::faults {
namespace {

// Y[n] = +(X[n, k] * W[k]) with the constant W = [1, 2, 3]: Y of [[1, 1, 1], [1, 0, -1]] is
// [6, -2].
void weighted_program(FaultRun& run, plaidml_program** out) {
  static const float kWeights[3] = {1, 2, 3};
  Builder b;
  FAULT_STEP(plaidml_builder_create("weighted", b.out()));
  const char* x_dims[2] = {"N", "3"};
  const int64_t w_dims[1] = {3};
  plaidml_value x{}, w{}, y{};
  FAULT_STEP(plaidml_builder_add_input(b.get(), "X", 2, x_dims, PLAIDML_DTYPE_FLOAT32, &x));
  FAULT_STEP(plaidml_builder_add_constant(b.get(), "W", PLAIDML_DTYPE_FLOAT32, 1, w_dims, kWeights,
                                          sizeof kWeights, nullptr, nullptr, &w));
  plaidml_expr n{}, k{}, big_n{};
  FAULT_STEP(plaidml_expr_index(b.get(), "n", &n));
  FAULT_STEP(plaidml_expr_index(b.get(), "k", &k));
  FAULT_STEP(plaidml_expr_dim(b.get(), "N", &big_n));
  Contraction c;
  FAULT_STEP(plaidml_contraction_create(b.get(), PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, c.out()));
  const plaidml_expr x_idx[2] = {n, k};
  FAULT_STEP(plaidml_contraction_set_output(c.get(), 1, &n, &big_n));
  FAULT_STEP(plaidml_contraction_add_input(c.get(), x, 2, x_idx));
  FAULT_STEP(plaidml_contraction_add_input(c.get(), w, 1, &k));
  FAULT_STEP(plaidml_builder_add_contraction(b.get(), c.get(), &y));
  FAULT_STEP(plaidml_builder_add_output(b.get(), "Y", y));
  FAULT_STEP(plaidml_builder_build(b.get(), out));
}

// Runs the weighted program in ctx and checks Y.
void run_weighted(FaultRun& run, plaidml_context* ctx, const plaidml_program* p) {
  const float xs[6] = {1, 1, 1, 1, 0, -1};
  const int64_t dims[2] = {2, 3};
  Buffer x, y;
  FAULT_STEP(
      plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, dims, xs, sizeof xs, x.out()));
  plaidml_buffer* input = x.get();
  FAULT_STEP(plaidml_execute(ctx, p, 1, nullptr, &input, 1, nullptr, y.out()));
  float got[2] = {};
  const float want[2] = {6, -2};
  FAULT_STEP(plaidml_buffer_read(y.get(), got, sizeof got));
  run.close("Y", got, want, 2, 1e-6f);
}

}  // namespace

void scenario_files(FaultRun& run, const FaultEnv& env) {
  char path[600];
  std::snprintf(path, sizeof path, "%s/weighted.plaidml", env.scratch);
  Program p, loaded, cached;
  weighted_program(run, p.out());
  if (run.failed()) return;
  FAULT_STEP(plaidml_program_save(p.get(), path));
  FAULT_STEP(plaidml_program_load(path, loaded.out()));
  size_t count = 0;
  uint64_t bytes = 0;
  FAULT_STEP(plaidml_program_constants(loaded.get(), &count, &bytes));
  if (count != 1 || bytes != 12) run.wrong("plaidml_program_constants", "not 1 of 12 bytes");
  // The keyed cache lives in PLAIDML_CACHE_DIR, which the sweep points at the scratch folder.
  FAULT_STEP(plaidml_program_cache_store("faults-weighted", loaded.get()));
  FAULT_STEP(plaidml_program_cache_load("faults-weighted", cached.out()));
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  run_weighted(run, ctx.get(), loaded.get());
  if (run.failed()) return;
  // A failed store is no error (the cache is optional): then there is nothing to run here.
  if (cached.get() != nullptr) run_weighted(run, ctx.get(), cached.get());
}

void scenario_disk_cache(FaultRun& run, const FaultEnv& env) {
  char dir[600];
  std::snprintf(dir, sizeof dir, "%s/cache", env.scratch);
  Program p;
  weighted_program(run, p.out());
  if (run.failed()) return;
  // The first context compiles and stores; the second finds the plan and kernels on disk.
  for (int pass = 0; pass < 2; ++pass) {
    Context ctx;
    if (!open_context(run, ctx, dir)) return;
    run_weighted(run, ctx.get(), p.get());
    if (run.failed()) return;
  }
}

namespace {

// Each misuse must give its own status and message, also when it is the first call of a
// context that has just been created.
void misuse_programs(FaultRun& run, plaidml_context* ctx) {
  Program p, bad;
  FAULT_EXPECT(plaidml_program_from_tile("function (A[N]) -> (B) {\n  B = A + ;\n}", bad.out()),
               PLAIDML_STATUS_PARSE_ERROR, "2:");
  FAULT_STEP(plaidml_program_from_tile(
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }", p.out()));
  const float data[4] = {1, 2, 3, 4};
  const int64_t a_dims[2] = {2, 2}, b_dims[2] = {3, 1};
  float twelve[3] = {};
  Buffer a, b, c;
  FAULT_STEP(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, a_dims, data,
                                             sizeof data, a.out()));
  FAULT_STEP(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, b_dims, b.out()));
  plaidml_buffer* inputs[2] = {a.get(), b.get()};
  FAULT_EXPECT(plaidml_execute(ctx, p.get(), 2, nullptr, inputs, 1, nullptr, c.out()),
               PLAIDML_STATUS_TYPE_ERROR, "'K'");
  FAULT_EXPECT(plaidml_buffer_read(a.get(), twelve, sizeof twelve), PLAIDML_STATUS_INVALID_ARGUMENT,
               "16");
  FAULT_EXPECT(plaidml_program_gradient(p.get(), "nothing", 0, nullptr, nullptr, bad.out()),
               PLAIDML_STATUS_NOT_FOUND, "nothing");
}

void misuse_builder(FaultRun& run) {
  Builder b;
  plaidml_value x{}, y{};
  FAULT_STEP(plaidml_builder_create(nullptr, b.out()));
  FAULT_STEP(plaidml_builder_add_input(b.get(), "X", 1, nullptr, PLAIDML_DTYPE_FLOAT32, &x));
  FAULT_EXPECT(plaidml_builder_call(b.get(), "no_such_function", 1, &x, 0, nullptr, &y),
               PLAIDML_STATUS_NOT_FOUND, "no_such_function");
  FAULT_EXPECT(plaidml_builder_op(b.get(), "no_such_op", 1, &x, nullptr, &y),
               PLAIDML_STATUS_NOT_FOUND, "no_such_op");
}

}  // namespace

void scenario_errors(FaultRun& run, const FaultEnv& env) {
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  misuse_programs(run, ctx.get());
  if (run.failed() || run.wrong_result()) return;
  misuse_builder(run);
  if (run.failed() || run.wrong_result()) return;
  char path[600];
  std::snprintf(path, sizeof path, "%s/absent.plaidml", env.scratch);
  Program absent;
  FAULT_EXPECT(plaidml_program_load(path, absent.out()), PLAIDML_STATUS_NOT_FOUND,
               "absent.plaidml");
  // 1 KiB of memory: a 4 KiB buffer is refused before anything is allocated, with the figures.
  Options options;
  Context small;
  FAULT_STEP(plaidml_context_options_create(options.out()));
  FAULT_STEP(
      plaidml_context_options_set_int(options.get(), PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT, 1024));
  FAULT_STEP(
      plaidml_context_options_set_string(options.get(), PLAIDML_CONTEXT_OPTION_CACHE_DIR, ""));
  FAULT_STEP(plaidml_context_create(options.get(), small.out()));
  const int64_t kib4[1] = {1024};
  Buffer big;
  FAULT_EXPECT(plaidml_buffer_create(small.get(), PLAIDML_DTYPE_FLOAT32, 1, kib4, big.out()),
               PLAIDML_STATUS_OUT_OF_MEMORY, "memory limit is 1.0 KiB");
}

}  // namespace plaidml::faults
