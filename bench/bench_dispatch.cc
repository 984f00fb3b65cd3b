#include "bench_dispatch.h"

#include <algorithm>
#include <vector>

#include "bench_capi.h"
#include "bench_report.h"
#include "bench_timing.h"

namespace plaidml_bench {

namespace {

constexpr const char* kAddTile = "function (A[N], B[N]) -> (C) { C = A + B; }";
constexpr int kWarmupCalls = 100;
const int64_t kDims[1] = {4};

struct AddState {
  ProgramPtr program;
  BufferPtr a, b, c;
};

Outcome<AddState> prepare(plaidml_context* context) {
  AddState s;
  plaidml_program* program = nullptr;
  plaidml_status status = plaidml_program_from_tile(kAddTile, &program);
  if (status != PLAIDML_STATUS_OK) return api_failure("parsing the add", status);
  s.program.reset(program);
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  plaidml_buffer* raw[3] = {};
  if ((status = plaidml_buffer_create_from_host(context, PLAIDML_DTYPE_FLOAT32, 1, kDims, a,
                                                sizeof a, &raw[0])) != PLAIDML_STATUS_OK ||
      (status = plaidml_buffer_create_from_host(context, PLAIDML_DTYPE_FLOAT32, 1, kDims, b,
                                                sizeof b, &raw[1])) != PLAIDML_STATUS_OK ||
      (status = plaidml_buffer_create(context, PLAIDML_DTYPE_FLOAT32, 1, kDims, &raw[2])) !=
          PLAIDML_STATUS_OK) {
    for (plaidml_buffer* buffer : raw) plaidml_buffer_destroy(buffer);
    return api_failure("creating the add's buffers", status);
  }
  s.a.reset(raw[0]);
  s.b.reset(raw[1]);
  s.c.reset(raw[2]);
  return s;
}

plaidml_status call(plaidml_context* context, AddState& s) {
  plaidml_buffer* inputs[2] = {s.a.get(), s.b.get()};
  plaidml_buffer* outputs[1] = {s.c.get()};
  return plaidml_execute(context, s.program.get(), 2, nullptr, inputs, 1, nullptr, outputs);
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

}  // namespace

DispatchResult measure_dispatch(plaidml_context* context, int calls) {
  DispatchResult r;
  auto state = prepare(context);
  if (!state) return DispatchResult{state.message()};
  for (int i = 0; i < kWarmupCalls; ++i) {
    plaidml_status status = call(context, *state);
    if (status != PLAIDML_STATUS_OK) return DispatchResult{api_failure("add", status).message};
  }
  const plaidml_stats before = context_stats(context);
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    auto start = Clock::now();
    plaidml_status status = call(context, *state);
    us.push_back(ms_since(start) * 1e3);
    if (status != PLAIDML_STATUS_OK) return DispatchResult{api_failure("add", status).message};
  }
  const plaidml_stats after = context_stats(context);
  float sums[4] = {};
  plaidml_buffer_read(state->c.get(), sums, sizeof sums);
  r.output_ok = sums[0] == 11 && sums[1] == 22 && sums[2] == 33 && sums[3] == 44;
  r.calls = calls;
  r.min_us = percentile(us, 0);
  r.median_us = percentile(us, 0.5);
  r.p90_us = percentile(us, 0.9);
  r.compiles = after.compiles - before.compiles;
  r.cache_hits = after.cache_hits - before.cache_hits;
  return r;
}

std::string dispatch_json(const DispatchResult& r, int threads) {
  std::string s = "{\"kind\": \"dispatch\", \"impl\": \"plaidml\", \"case\": \"add_4\"";
  s += ", \"threads\": " + std::to_string(threads);
  s += ", \"status\": " + json_string(r.error.empty() ? "ok" : "error");
  if (!r.error.empty()) return s + ", \"error\": " + json_string(r.error) + "}";
  s += ", \"calls\": " + std::to_string(r.calls);
  s += ", \"min_us\": " + json_number(r.min_us);
  s += ", \"median_us\": " + json_number(r.median_us);
  s += ", \"p90_us\": " + json_number(r.p90_us);
  s += ", \"compiles\": " + std::to_string(r.compiles);
  s += ", \"cache_hits\": " + std::to_string(r.cache_hits);
  s += ", \"check\": " + json_string(r.output_ok ? "ok" : "FAIL");
  return s + "}";
}

}  // namespace plaidml_bench
