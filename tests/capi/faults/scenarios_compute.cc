// Scenarios of contexts, Tile text, builder calls and gradients (scenarios.h). Expected values
// are computed by hand in the comments and spelled out as arrays.
#include <cmath>
#include <cstring>

#include "capi/faults/scenarios.h"

namespace plaidml::faults {
namespace {

const float kA[6] = {1, 2, 3, 4, 5, 6};  // A f32[2, 3]
const float kB[6] = {1, 0, 0, 1, 1, 1};  // B f32[3, 2]
// C = A.B = [[1+3, 2+3], [4+6, 5+6]]; D = relu(C - 6).
const float kC[4] = {4, 5, 10, 11};
const float kD[4] = {0, 0, 4, 5};
const int64_t kDimsA[2] = {2, 3};
const int64_t kDimsB[2] = {3, 2};
const int64_t kDims22[2] = {2, 2};

const char kTileText[] =
    "function (A[M, K], B[K, N]) -> (C, D) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "  D = relu(C - 6);\n"
    "}\n";

// Reads a float buffer of n elements and compares it with want.
void check_buffer(FaultRun& run, const char* what, plaidml_buffer* buffer, const float* want,
                  size_t n) {
  float got[16] = {};
  if (!run.ok(plaidml_buffer_read(buffer, got, n * sizeof(float)), "plaidml_buffer_read")) return;
  run.close(what, got, want, n, 1e-5f);
}

// The program's inputs and outputs, as declared.
void inspect_program(FaultRun& run, const plaidml_program* p) {
  size_t count = 0;
  const char* name = nullptr;
  FAULT_STEP(plaidml_program_input_count(p, &count));
  if (count != 2) run.wrong("plaidml_program_input_count", "not 2");
  FAULT_STEP(plaidml_program_input_name(p, 1, &name));
  if (std::strcmp(name, "B") != 0) run.wrong("plaidml_program_input_name", "not B");
  FAULT_STEP(plaidml_program_input_dim(p, 0, 1, &name));
  if (std::strcmp(name, "K") != 0) run.wrong("plaidml_program_input_dim", "not K");
  FAULT_STEP(plaidml_program_output_count(p, &count));
  if (count != 2) run.wrong("plaidml_program_output_count", "not 2");
  FAULT_STEP(plaidml_program_output_name(p, 1, &name));
  if (std::strcmp(name, "D") != 0) run.wrong("plaidml_program_output_name", "not D");
  Text text;
  FAULT_STEP(plaidml_program_print(p, text.out()));
  if (std::strstr(text.get(), "relu") == nullptr) run.wrong("plaidml_program_print", "no relu");
}

// Executes with outputs plaidml allocates, then again into buffers the caller made.
void run_tile_program(FaultRun& run, plaidml_context* ctx, const plaidml_program* p) {
  Buffer a, b, c, d, c2, d2;
  FAULT_STEP(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 2, kDimsA, kA, sizeof kA,
                                             a.out()));
  FAULT_STEP(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, kDimsB, b.out()));
  FAULT_STEP(plaidml_buffer_write(b.get(), kB, sizeof kB));
  plaidml_buffer* inputs[2] = {a.get(), b.get()};
  plaidml_buffer* outputs[2] = {nullptr, nullptr};
  FAULT_STEP(plaidml_execute(ctx, p, 2, nullptr, inputs, 2, nullptr, outputs));
  *c.out() = outputs[0];
  *d.out() = outputs[1];
  check_buffer(run, "C", c.get(), kC, 4);
  check_buffer(run, "D", d.get(), kD, 4);
  // The second execute is a plan-cache hit, and writes into given buffers.
  FAULT_STEP(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, kDims22, c2.out()));
  FAULT_STEP(plaidml_buffer_create(ctx, PLAIDML_DTYPE_FLOAT32, 2, kDims22, d2.out()));
  const char* names[2] = {"D", "C"};
  plaidml_buffer* given[2] = {d2.get(), c2.get()};
  FAULT_STEP(plaidml_execute(ctx, p, 2, nullptr, inputs, 2, names, given));
  check_buffer(run, "C (given)", c2.get(), kC, 4);
  check_buffer(run, "D (given)", d2.get(), kD, 4);
}

void profile(FaultRun& run, plaidml_context* ctx) {
  Text trace, summary;
  FAULT_STEP(plaidml_context_profile_trace(ctx, trace.out()));
  if (std::strstr(trace.get(), "traceEvents") == nullptr) run.wrong("trace", "no traceEvents");
  FAULT_STEP(plaidml_context_profile_summary(ctx, 5, summary.out()));
  FAULT_STEP(plaidml_context_profile_clear(ctx));
}

}  // namespace

void scenario_context(FaultRun& run, const FaultEnv&) {
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  size_t count = 0;
  const char *id = nullptr, *name = nullptr, *reason = nullptr, *dir = nullptr;
  bool available = false;
  FAULT_STEP(plaidml_device_count(ctx.get(), &count));
  if (count < 1) run.wrong("plaidml_device_count", "no device");
  FAULT_STEP(plaidml_device_id(ctx.get(), 0, &id));
  if (std::strcmp(id, "cpu:0") != 0) run.wrong("plaidml_device_id", "device 0 is not cpu:0");
  FAULT_STEP(plaidml_device_name(ctx.get(), 0, &name));
  FAULT_STEP(plaidml_device_available(ctx.get(), 0, &available, &reason));
  if (!available) run.wrong("plaidml_device_available", "cpu:0 is not available");
  FAULT_STEP(plaidml_context_select_device(ctx.get(), "cpu:0"));
  FAULT_STEP(plaidml_context_device(ctx.get(), &id));
  if (std::strcmp(id, "cpu:0") != 0) run.wrong("plaidml_context_device", "not cpu:0");
  FAULT_STEP(plaidml_context_cache_dir(ctx.get(), &dir));
  if (dir[0] != '\0') run.wrong("plaidml_context_cache_dir", "the disk cache is on");
  plaidml_stats stats{};
  stats.struct_size = sizeof stats;
  FAULT_STEP(plaidml_context_stats(ctx.get(), &stats));
  if (stats.compiles != 0) run.wrong("plaidml_context_stats", "compiles in a new context");
}

void scenario_tile(FaultRun& run, const FaultEnv&) {
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  FAULT_STEP(plaidml_context_set_profiling(ctx.get(), true));
  Program p;
  FAULT_STEP(plaidml_program_from_tile(kTileText, p.out()));
  inspect_program(run, p.get());
  if (run.failed()) return;
  run_tile_program(run, ctx.get(), p.get());
  if (run.failed()) return;
  profile(run, ctx.get());
  if (run.failed()) return;
  plaidml_stats stats{};
  stats.struct_size = sizeof stats;
  FAULT_STEP(plaidml_context_stats(ctx.get(), &stats));
  if (stats.compiles != 1 || stats.cache_hits != 1) {
    run.wrong("plaidml_context_stats", "not 1 compile and 1 cache hit");
  }
}

namespace {

// W f32[4, 2]: W[k, 0] = k + 1, W[k, 1] = -(k + 1).
const float kW[8] = {1, -1, 2, -2, 3, -3, 4, -4};
// X f32[2, 4]: rows e0 and e1 + e3, so Y = X.W = [[1, -1], [6, -6]].
const float kX[8] = {1, 0, 0, 0, 0, 1, 0, 1};
const float kY[4] = {1, -1, 6, -6};

// Y[n, j : N, 2] = +(X[n, k] * W[k, j]) through the contraction calls.
bool add_matmul(FaultRun& run, plaidml_builder* b, plaidml_value x, plaidml_value w,
                plaidml_value* y) {
  plaidml_expr n{}, j{}, k{}, big_n{}, two{};
  Contraction c;
  if (!run.ok(plaidml_expr_index(b, "n", &n), "plaidml_expr_index") ||
      !run.ok(plaidml_expr_index(b, "j", &j), "plaidml_expr_index") ||
      !run.ok(plaidml_expr_index(b, "k", &k), "plaidml_expr_index") ||
      !run.ok(plaidml_expr_dim(b, "N", &big_n), "plaidml_expr_dim") ||
      !run.ok(plaidml_expr_int(b, 2, &two), "plaidml_expr_int") ||
      !run.ok(plaidml_contraction_create(b, PLAIDML_AGG_SUM, PLAIDML_COMB_MUL, c.out()),
              "plaidml_contraction_create")) {
    return false;
  }
  const plaidml_expr out_idx[2] = {n, j}, sizes[2] = {big_n, two};
  const plaidml_expr x_idx[2] = {n, k}, w_idx[2] = {k, j};
  return run.ok(plaidml_contraction_set_output(c.get(), 2, out_idx, sizes),
                "plaidml_contraction_set_output") &&
         run.ok(plaidml_contraction_add_input(c.get(), x, 2, x_idx),
                "plaidml_contraction_add_input") &&
         run.ok(plaidml_contraction_add_input(c.get(), w, 2, w_idx),
                "plaidml_contraction_add_input") &&
         run.ok(plaidml_builder_add_contraction(b, c.get(), y), "plaidml_builder_add_contraction");
}

// V = Y + 0.5 and Z = softmax(Y, axis 1), from X and the constant W.
void build_program(FaultRun& run, plaidml_program** out) {
  Builder b;
  FAULT_STEP(plaidml_builder_create("faults", b.out()));
  FAULT_STEP(plaidml_builder_set_origin(b.get(), "scenario_builder"));
  const char* x_dims[2] = {"N", "4"};
  plaidml_value x{}, w{}, y{}, half{}, v{}, z{};
  FAULT_STEP(plaidml_builder_add_input(b.get(), "X", 2, x_dims, PLAIDML_DTYPE_FLOAT32, &x));
  const int64_t w_dims[2] = {4, 2};
  FAULT_STEP(plaidml_builder_add_constant(b.get(), "W", PLAIDML_DTYPE_FLOAT32, 2, w_dims, kW,
                                          sizeof kW, nullptr, nullptr, &w));
  if (!add_matmul(run, b.get(), x, w, &y)) return;
  size_t rank = 0;
  FAULT_STEP(plaidml_builder_value_rank(b.get(), y, &rank));
  if (rank != 2) run.wrong("plaidml_builder_value_rank", "not 2");
  FAULT_STEP(plaidml_builder_float_constant(b.get(), 0.5, &half));
  const plaidml_value add_args[2] = {y, half};
  FAULT_STEP(plaidml_builder_call(b.get(), "add", 2, add_args, 0, nullptr, &v));
  Attrs attrs;
  FAULT_STEP(plaidml_attrs_create(attrs.out()));
  FAULT_STEP(plaidml_attrs_set_int(attrs.get(), "axis", 1));
  FAULT_STEP(plaidml_builder_op(b.get(), "softmax", 1, &y, attrs.get(), &z));
  FAULT_STEP(plaidml_builder_add_output(b.get(), "V", v));
  FAULT_STEP(plaidml_builder_add_output(b.get(), "Z", z));
  FAULT_STEP(plaidml_builder_build(b.get(), out));
}

void softmax_rows(const float* y, float* out) {
  for (int r = 0; r < 2; ++r) {
    float e0 = std::exp(y[2 * r]), e1 = std::exp(y[2 * r + 1]);
    out[2 * r] = e0 / (e0 + e1);
    out[2 * r + 1] = e1 / (e0 + e1);
  }
}

}  // namespace

void scenario_builder(FaultRun& run, const FaultEnv&) {
  Program p;
  build_program(run, p.out());
  if (run.failed()) return;
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  const int64_t x_dims[2] = {2, 4};
  const plaidml_tensor_shape shape = {PLAIDML_DTYPE_FLOAT32, 2, x_dims};
  FAULT_STEP(plaidml_compile(ctx.get(), p.get(), 1, nullptr, &shape));
  plaidml_memory memory{};
  memory.struct_size = sizeof memory;
  FAULT_STEP(plaidml_program_memory(ctx.get(), p.get(), 1, nullptr, &shape, &memory));
  if (memory.constants_bytes != sizeof kW) run.wrong("plaidml_program_memory", "constants");
  Buffer x, v, z;
  FAULT_STEP(plaidml_buffer_create_from_host(ctx.get(), PLAIDML_DTYPE_FLOAT32, 2, x_dims, kX,
                                             sizeof kX, x.out()));
  plaidml_buffer* outputs[2] = {nullptr, nullptr};
  plaidml_buffer* input = x.get();
  const char* name = "X";
  FAULT_STEP(plaidml_execute(ctx.get(), p.get(), 1, &name, &input, 2, nullptr, outputs));
  *v.out() = outputs[0];
  *z.out() = outputs[1];
  float want_v[4], want_z[4];
  for (int i = 0; i < 4; ++i) want_v[i] = kY[i] + 0.5f;
  softmax_rows(kY, want_z);
  check_buffer(run, "V", v.get(), want_v, 4);
  check_buffer(run, "Z", z.get(), want_z, 4);
}

void scenario_gradient(FaultRun& run, const FaultEnv&) {
  // L = sum(X * W * W): dL/dX = W^2, dL/dW = 2 X W.
  Program p, grad;
  FAULT_STEP(plaidml_program_from_tile(
      "function (X[N], W[N]) -> (L) { P = X * W * W; L[] = +(P[i]); }", p.out()));
  const char* wrt[2] = {"X", "W"};
  FAULT_STEP(plaidml_program_gradient(p.get(), "L", 2, wrt, nullptr, grad.out()));
  Context ctx;
  if (!open_context(run, ctx, "")) return;
  const float xs[3] = {1, 2, 3}, ws[3] = {2, -1, 0.5f};
  const int64_t dims[1] = {3};
  Buffer x, w, l, dx, dw;
  FAULT_STEP(plaidml_buffer_create_from_host(ctx.get(), PLAIDML_DTYPE_FLOAT32, 1, dims, xs,
                                             sizeof xs, x.out()));
  FAULT_STEP(plaidml_buffer_create_from_host(ctx.get(), PLAIDML_DTYPE_FLOAT32, 1, dims, ws,
                                             sizeof ws, w.out()));
  plaidml_buffer* inputs[2] = {x.get(), w.get()};
  plaidml_buffer* outputs[3] = {nullptr, nullptr, nullptr};
  FAULT_STEP(plaidml_execute(ctx.get(), grad.get(), 2, nullptr, inputs, 3, nullptr, outputs));
  *l.out() = outputs[0];
  *dx.out() = outputs[1];
  *dw.out() = outputs[2];
  // L = 1*4 + 2*1 + 3*0.25 = 6.75.
  const float want_l[1] = {6.75f}, want_dx[3] = {4, 1, 0.25f}, want_dw[3] = {4, -4, 3};
  check_buffer(run, "L", l.get(), want_l, 1);
  check_buffer(run, "X_grad", dx.get(), want_dx, 3);
  check_buffer(run, "W_grad", dw.get(), want_dw, 3);
}

}  // namespace plaidml::faults
