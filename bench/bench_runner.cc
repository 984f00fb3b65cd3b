#include "bench_runner.h"

#include <string>
#include <vector>

#include "bench_capi.h"
#include "bench_check.h"
#include "bench_half.h"
#include "bench_timing.h"

namespace plaidml_bench {

namespace {

// The device-side state of one case, created once: inputs, the output and the name arrays that
// plaidml_execute takes. Every timed run reuses it, so no host copy or allocation is timed.
struct DeviceState {
  ProgramPtr program;
  std::vector<BufferPtr> inputs;
  BufferPtr output;
  std::vector<const char*> input_names;
  std::vector<plaidml_buffer*> input_handles;
};

plaidml_dtype dtype_of(const BenchCase& c) {
  return c.half ? PLAIDML_DTYPE_FLOAT16 : PLAIDML_DTYPE_FLOAT32;
}

Outcome<BufferPtr> upload(plaidml_context* context, const BenchCase& c, const Dims& dims,
                          const std::vector<float>& values) {
  plaidml_buffer* raw = nullptr;
  std::vector<uint16_t> halves;
  const void* data = values.data();
  size_t bytes = values.size() * sizeof(float);
  if (c.half) {
    for (float v : values) halves.push_back(half_bits(v));
    data = halves.data();
    bytes = halves.size() * sizeof(uint16_t);
  }
  plaidml_status status = plaidml_buffer_create_from_host(context, dtype_of(c), dims.size(),
                                                          dims.data(), data, bytes, &raw);
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
    auto buffer = upload(context, c, c.input_dims[i], host[i]);
    if (!buffer) return Failure{buffer.message()};
    state.input_handles.push_back(buffer->get());
    state.input_names.push_back(c.input_names[i].c_str());
    state.inputs.push_back(std::move(*buffer));
  }
  plaidml_buffer* output = nullptr;
  status = plaidml_buffer_create(context, dtype_of(c), c.output_dims.size(),
                                 c.output_dims.data(), &output);
  if (status != PLAIDML_STATUS_OK) return api_failure("allocating the output", status);
  state.output.reset(output);
  return state;
}

plaidml_status compile(plaidml_context* context, const BenchCase& c,
                       const plaidml_program* program) {
  std::vector<plaidml_tensor_shape> shapes;
  std::vector<const char*> names;
  for (size_t i = 0; i < c.input_dims.size(); ++i) {
    shapes.push_back({dtype_of(c), c.input_dims[i].size(), c.input_dims[i].data()});
    names.push_back(c.input_names[i].c_str());
  }
  return plaidml_compile(context, program, shapes.size(), names.data(), shapes.data());
}

plaidml_status execute(plaidml_context* context, DeviceState& state) {
  plaidml_buffer* outputs[1] = {state.output.get()};
  return plaidml_execute(context, state.program.get(), state.input_handles.size(),
                         state.input_names.data(), state.input_handles.data(), 1, nullptr, outputs);
}

// "" for OK, else the status and the library's message (the timing loop says which run).
std::string run_status(plaidml_status status) {
  if (status == PLAIDML_STATUS_OK) return "";
  return std::string(plaidml_status_name(status)) + ": " + plaidml_last_error_message();
}

Outcome<std::vector<float>> read_output(const BenchCase& c, const plaidml_buffer* output) {
  std::vector<float> got(static_cast<size_t>(element_count(c.output_dims)));
  std::vector<uint16_t> halves(c.half ? got.size() : 0);
  plaidml_status status =
      c.half ? plaidml_buffer_read(output, halves.data(), halves.size() * sizeof(uint16_t))
             : plaidml_buffer_read(output, got.data(), got.size() * sizeof(float));
  if (status != PLAIDML_STATUS_OK) return api_failure("reading the output", status);
  for (size_t i = 0; i < halves.size(); ++i) got[i] = half_value(halves[i]);
  return got;
}

// plaidml_compile with its wall time, the library's own time and what the kernel cache did
// (kernels generated, kernels read from the disk cache) filled into result.
plaidml_status timed_compile(plaidml_context* context, const BenchCase& c,
                             const plaidml_program* program, CaseResult& result) {
  const plaidml_stats before = context_stats(context);
  auto start = Clock::now();
  plaidml_status status = compile(context, c, program);
  result.compile_ms = ms_since(start);
  const plaidml_stats after = context_stats(context);
  result.library_compile_ms = after.last_compile_seconds * 1e3;
  result.kernels_compiled = after.kernels_compiled - before.kernels_compiled;
  result.kernel_disk_hits = after.disk_hits - before.disk_hits;
  return status;
}

// Keeps what was measured before the failure (a compile time, say) next to the message.
CaseResult failed(CaseResult result, std::string message) {
  result.error = std::move(message);
  return result;
}

}  // namespace

CaseResult compile_case(plaidml_context* context, const BenchCase& c) {
  CaseResult result;
  plaidml_program* program = nullptr;
  plaidml_status status = plaidml_program_from_tile(c.tile.c_str(), &program);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("parsing the Tile program", status).message);
  ProgramPtr owned(program);
  status = timed_compile(context, c, program, result);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("compiling", status).message);
  return result;
}

CaseResult run_case(plaidml_context* context, const BenchCase& c, const RunSettings& settings) {
  CaseResult result;
  HostInputs host = make_inputs(c, settings.seed);
  auto state = prepare(context, c, host);
  if (!state) return failed(std::move(result), state.message());

  plaidml_status status = timed_compile(context, c, state->program.get(), result);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("compiling", status).message);

  auto start = Clock::now();
  status = execute(context, *state);
  result.first_run_ms = ms_since(start);
  if (status != PLAIDML_STATUS_OK)
    return failed(std::move(result), api_failure("first run", status).message);

  std::string error = timed_runs(
      settings, [&] { return run_status(execute(context, *state)); }, result);
  if (!error.empty()) return failed(std::move(result), error);

  auto output = read_output(c, state->output.get());
  if (!output) return failed(std::move(result), output.message());
  result.check = spot_check(c, host, *output, settings.spot_checks);
  if (settings.keep_output) result.output = std::move(*output);
  return result;
}

}  // namespace plaidml_bench
