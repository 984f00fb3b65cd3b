#include "bench_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench_capi.h"

namespace plaidml_bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The device-side state of one case, created once: inputs, the output and the name arrays that
// plaidml_execute takes. Every timed run reuses it, so no host copy or allocation is timed.
struct DeviceState {
  ProgramPtr program;
  std::vector<BufferPtr> inputs;
  BufferPtr output;
  std::vector<const char*> input_names;
  std::vector<plaidml_buffer*> input_handles;
};

Outcome<BufferPtr> upload(plaidml_context* context, const Dims& dims,
                          const std::vector<float>& values) {
  plaidml_buffer* raw = nullptr;
  plaidml_status status =
      plaidml_buffer_create_from_host(context, PLAIDML_DTYPE_FLOAT32, dims.size(), dims.data(),
                                      values.data(), values.size() * sizeof(float), &raw);
  if (status != PLAIDML_STATUS_OK) return api_failure("uploading an input", status);
  return BufferPtr(raw);
}

Outcome<DeviceState> prepare(plaidml_context* context, const BenchCase& c, const HostInputs& host) {
  DeviceState state;
  plaidml_program* program = nullptr;
  plaidml_status status = plaidml_program_from_tile(c.tile.c_str(), &program);
  if (status != PLAIDML_STATUS_OK) return api_failure("parsing the Tile program", status);
  state.program.reset(program);
  for (size_t i = 0; i < c.input_dims.size(); ++i) {
    auto buffer = upload(context, c.input_dims[i], host[i]);
    if (!buffer) return Failure{buffer.message()};
    state.input_handles.push_back(buffer->get());
    state.input_names.push_back(c.input_names[i].c_str());
    state.inputs.push_back(std::move(*buffer));
  }
  plaidml_buffer* output = nullptr;
  status = plaidml_buffer_create(context, PLAIDML_DTYPE_FLOAT32, c.output_dims.size(),
                                 c.output_dims.data(), &output);
  if (status != PLAIDML_STATUS_OK) return api_failure("allocating the output", status);
  state.output.reset(output);
  return state;
}

plaidml_status compile(plaidml_context* context, const BenchCase& c, const DeviceState& state) {
  std::vector<plaidml_tensor_shape> shapes;
  for (const Dims& dims : c.input_dims) {
    shapes.push_back({PLAIDML_DTYPE_FLOAT32, dims.size(), dims.data()});
  }
  return plaidml_compile(context, state.program.get(), shapes.size(), state.input_names.data(),
                         shapes.data());
}

plaidml_status execute(plaidml_context* context, DeviceState& state) {
  plaidml_buffer* outputs[1] = {state.output.get()};
  return plaidml_execute(context, state.program.get(), state.input_handles.size(),
                         state.input_names.data(), state.input_handles.data(), 1, nullptr, outputs);
}

// Output elements to check: the first, the last, and a spread of others in between.
std::vector<int64_t> spot_indices(int64_t count, int n) {
  std::vector<int64_t> indices = {0, count - 1};
  uint64_t h = 0x243F6A8885A308D3ull;
  for (int i = 2; i < n; ++i) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    indices.push_back(int64_t((h >> 17) % uint64_t(count)));
  }
  return indices;
}

// float32 accumulation over K terms is off by a few ulps of the sum of |terms| in practice;
// 1e-4 of it leaves room for any summation order and still catches a wrong element.
constexpr double kRelativeTolerance = 1e-4;

Outcome<SpotCheck> spot_check(const BenchCase& c, const HostInputs& host,
                              const plaidml_buffer* output, int n) {
  const int64_t count = element_count(c.output_dims);
  std::vector<float> got(static_cast<size_t>(count));
  plaidml_status status = plaidml_buffer_read(output, got.data(), got.size() * sizeof(float));
  if (status != PLAIDML_STATUS_OK) return api_failure("reading the output", status);
  SpotCheck check;
  for (int64_t index : spot_indices(count, n)) {
    Reference want = c.reference(host, index);
    double error = std::fabs(double(got[size_t(index)]) - want.value);
    double relative = error / (want.scale > 0 ? want.scale : 1.0);
    ++check.checked;
    check.max_error = std::max(check.max_error, std::isnan(relative) ? INFINITY : relative);
    if (!(relative <= kRelativeTolerance)) {
      if (check.failed++ == 0) {
        char text[160];
        std::snprintf(text, sizeof text, "element %lld: got %.9g, want %.9g",
                      static_cast<long long>(index), double(got[size_t(index)]), want.value);
        check.first_failure = text;
      }
    }
  }
  return check;
}

double library_last_compile_ms(const plaidml_context* context) {
  plaidml_stats stats{};
  stats.struct_size = sizeof stats;
  if (plaidml_context_stats(context, &stats) != PLAIDML_STATUS_OK) return 0;
  return stats.last_compile_seconds * 1e3;
}

// Warm-up, then timed runs; both stop early after max_seconds (a slow device must not eat the
// time of the cases after it). Each run is one plaidml_execute, which returns after the device has
// finished (the runtime synchronises), so wall time is the honest end-to-end latency.
Outcome<std::vector<double>> timed_runs(plaidml_context* context, DeviceState& state,
                                        const RunSettings& settings) {
  auto warmup_start = Clock::now();
  for (int i = 0; i < settings.warmup && ms_since(warmup_start) < settings.max_seconds * 1e3; ++i) {
    plaidml_status status = execute(context, state);
    if (status != PLAIDML_STATUS_OK) return api_failure("warm-up run", status);
  }
  std::vector<double> times;
  auto budget_start = Clock::now();
  for (int i = 0; i < settings.repeat; ++i) {
    auto start = Clock::now();
    plaidml_status status = execute(context, state);
    if (status != PLAIDML_STATUS_OK) return api_failure("timed run", status);
    times.push_back(ms_since(start));
    if (int(times.size()) >= settings.min_repeat &&
        ms_since(budget_start) > settings.max_seconds * 1e3)
      break;
  }
  return times;
}

// Keeps what was measured before the failure (a compile time, say) next to the message.
CaseResult failed(CaseResult result, std::string message) {
  result.error = std::move(message);
  return result;
}

}  // namespace

CaseResult run_case(plaidml_context* context, const BenchCase& c, const RunSettings& settings) {
  CaseResult result;
  HostInputs host = make_inputs(c, settings.seed);
  auto state = prepare(context, c, host);
  if (!state) return failed(std::move(result), state.message());

  auto start = Clock::now();
  plaidml_status status = compile(context, c, *state);
  result.compile_ms = ms_since(start);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("compiling", status).message);
  result.library_compile_ms = library_last_compile_ms(context);

  start = Clock::now();
  status = execute(context, *state);
  result.first_run_ms = ms_since(start);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("first run", status).message);

  auto times = timed_runs(context, *state, settings);
  if (!times) return failed(std::move(result), times.message());
  result.warmup = settings.warmup;
  result.run_ms = std::move(*times);

  auto check = spot_check(c, host, state->output.get(), settings.spot_checks);
  if (!check) return failed(std::move(result), check.message());
  result.check = *check;
  return result;
}

}  // namespace plaidml_bench
