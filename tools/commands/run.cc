// `plaidml run`: bind inputs from .npy files or generators, compile (first run), repeat from the
// cache, then report timings, cache statistics and per-output summaries.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "capi_util.h"
#include "commands.h"
#include "generate.h"
#include "onnx_util.h"
#include "output_files.h"
#include "summary.h"

namespace plaidml_cli {

namespace {

struct BoundInputs {
  std::vector<std::string> names;
  std::vector<BufferPtr> buffers;
};

// The command line must name every program input exactly once. Checked before any file is read
// (other than those of inputs an ONNX model's import needed) so that the message lists the
// program's real inputs. `bound`: the inputs of an ONNX model bound to their contents at import
// (given, but not inputs of the program).
Result<Done> check_input_names(const std::string& path, const plaidml_program* program,
                               const std::vector<InputSpec>& inputs,
                               const std::vector<std::string>& bound) {
  auto expected = program_input_names(program);
  std::set<std::string> declared(expected.begin(), expected.end());
  std::set<std::string> given;
  for (const auto& spec : inputs) {
    if (std::find(bound.begin(), bound.end(), spec.name) != bound.end()) continue;
    if (!declared.count(spec.name)) {
      return usage_error("--input " + spec.text + ": " + path + " has no input '" + spec.name +
                         "' (its inputs are " + join(expected) + ")");
    }
    given.insert(spec.name);
  }
  std::vector<std::string> missing;
  for (const auto& name : expected) {
    if (!given.count(name)) missing.push_back(name);
  }
  if (!missing.empty()) {
    return usage_error(path + " needs " + (missing.size() == 1 ? "input " : "inputs ") +
                       join(missing) + ": add --input NAME=FILE.npy (or NAME=random:f32:2x3)");
  }
  return Done{};
}

Result<NpyArray> read_input(const InputSpec& spec, uint64_t seed) {
  return spec.kind == InputSpec::Kind::kFile ? read_npy(spec.path)
                                             : Result<NpyArray>(generate_input(spec, seed));
}

// The program; for an ONNX model whose shapes depend on inputs' contents, imported with those
// inputs bound to their --input arrays (listed in *bound).
Result<ProgramPtr> load_for_run(const RunOptions& options, std::vector<std::string>* bound) {
  const std::string& path = options.program_path;
  if (!is_onnx_path(path)) return load_program(path, options.dims);
  auto reader = [&](const std::string& name) -> Result<NpyArray> {
    for (const auto& spec : options.inputs) {
      if (spec.name == name) return read_input(spec, options.seed);
    }
    return usage_error(path + ": the import needs the contents of input '" + name +
                       "' (shapes depend on it): add --input " + name + "=FILE.npy");
  };
  auto loaded = load_onnx_program_binding(path, options.dims, reader);
  if (!loaded) return loaded.error();
  *bound = std::move(loaded->bound);
  return std::move(loaded->program);
}

Result<BoundInputs> bind_inputs(plaidml_context* context, const RunOptions& options,
                                const std::vector<std::string>& bound_at_import) {
  BoundInputs bound;
  for (const auto& spec : options.inputs) {
    if (std::find(bound_at_import.begin(), bound_at_import.end(), spec.name) !=
        bound_at_import.end()) {
      continue;
    }
    Result<NpyArray> array = read_input(spec, options.seed);
    if (!array) return array.error();
    auto buffer = buffer_from_array(context, *array);
    if (!buffer) return runtime_error("input '" + spec.name + "': " + buffer.error().message);
    bound.names.push_back(spec.name);
    bound.buffers.push_back(std::move(*buffer));
  }
  return bound;
}

// The file each output goes to (none without --output-dir). Decided before the run, so that two
// outputs sharing a file cost no compile and leave no partial output behind.
Result<std::vector<std::string>> planned_output_files(const plaidml_program* program,
                                                      const RunOptions& options) {
  if (options.output_dir.empty()) return std::vector<std::string>{};
  return output_file_names(program_output_names(program));
}

using Clock = std::chrono::steady_clock;

// One execution. outputs: null entries are allocated by the library (first run); given entries
// are written in place (cached runs), so the timing is the run, not the allocation.
Result<double> execute(plaidml_context* context, const plaidml_program* program,
                       const BoundInputs& inputs, std::vector<plaidml_buffer*>& outputs,
                       const std::string& path) {
  std::vector<const char*> names;
  std::vector<plaidml_buffer*> buffers;
  for (size_t i = 0; i < inputs.names.size(); ++i) {
    names.push_back(inputs.names[i].c_str());
    buffers.push_back(inputs.buffers[i].get());
  }
  auto start = Clock::now();
  plaidml_status status = plaidml_execute(context, program, names.size(), names.data(),
                                          buffers.data(), outputs.size(), nullptr, outputs.data());
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (status != PLAIDML_STATUS_OK) return program_error(path);
  return seconds;
}

// files: the file name of each output (output_files.h), used when options.output_dir is set.
Result<Done> report_outputs(const plaidml_program* program, const std::vector<BufferPtr>& outputs,
                            const std::vector<std::string>& files, const RunOptions& options,
                            std::ostream& out, std::ostream& err) {
  auto names = program_output_names(program);
  if (!options.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.output_dir, ec);
    if (ec)
      return runtime_error(options.output_dir + ": cannot create directory (" + ec.message() + ")");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto array = array_from_buffer(outputs[i].get());
    if (!array) return array.error();
    std::string line = summary_line(names[i], *array);
    if (!options.output_dir.empty()) {
      std::string file = (std::filesystem::path(options.output_dir) / files[i]).string();
      if (auto warning = npy_write_warning(array->dtype, file))
        err << "plaidml: warning: " << *warning << "\n";
      auto written = write_npy(file, *array);
      if (!written) return written.error();
      line += " file=" + file;
    }
    out << line << "\n";
    if (options.print_values) out << format_values(*array);
  }
  return Done{};
}

void report_timings(plaidml_context* context, double first, const std::vector<double>& repeats,
                    std::ostream& out) {
  out << "compile+run: " << format_ms(first) << " ms\n";
  if (!repeats.empty()) {
    double min = *std::min_element(repeats.begin(), repeats.end());
    out << "cached runs: n=" << repeats.size() << " min=" << format_ms(min)
        << " ms median=" << format_ms(median(repeats)) << " ms\n";
  }
  plaidml_stats stats{};
  stats.struct_size = sizeof(stats);
  if (plaidml_context_stats(context, &stats) == PLAIDML_STATUS_OK) {
    out << "cache: compiles=" << stats.compiles << " hits=" << stats.cache_hits
        << " compile_time=" << format_ms(stats.compile_seconds) << " ms\n";
    const char* dir = "";
    if (plaidml_context_cache_dir(context, &dir) != PLAIDML_STATUS_OK) dir = "?";
    out << "kernel cache: compiled=" << stats.kernels_compiled
        << " memory_hits=" << stats.kernel_memory_hits << " disk_hits=" << stats.disk_hits
        << " disk_misses=" << stats.disk_misses << " disk_writes=" << stats.disk_writes
        << " dir=" << (*dir ? dir : "off") << "\n";
  }
}

// --memory: the figures of plaidml_program_memory at the bound inputs' shapes.
Result<Done> report_memory(plaidml_context* context, const plaidml_program* program,
                           const BoundInputs& inputs, const std::string& path, std::ostream& out) {
  std::vector<const char*> names;
  std::vector<plaidml_tensor_shape> shapes;
  std::vector<std::vector<int64_t>> dims(inputs.names.size());
  for (size_t i = 0; i < inputs.names.size(); ++i) {
    plaidml_buffer* b = inputs.buffers[i].get();
    plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
    size_t rank = 0;
    plaidml_buffer_dtype(b, &dtype);
    plaidml_buffer_rank(b, &rank);
    dims[i].resize(rank);
    for (size_t a = 0; a < rank; ++a) plaidml_buffer_dim(b, a, &dims[i][a]);
    names.push_back(inputs.names[i].c_str());
    shapes.push_back({dtype, rank, dims[i].data()});
  }
  plaidml_memory m{};
  m.struct_size = sizeof(m);
  if (plaidml_program_memory(context, program, names.size(), names.data(), shapes.data(), &m) !=
      PLAIDML_STATUS_OK) {
    return program_error(path);
  }
  out << "memory: constants=" << m.constants_bytes << " arena=" << m.arena_bytes
      << " unshared=" << m.unshared_bytes << " inputs=" << m.inputs_bytes
      << " outputs=" << m.outputs_bytes << " peak=" << m.peak_bytes
      << " device=" << m.device_memory_bytes << " budget=" << m.budget_bytes << "\n";
  return Done{};
}

// --profile: the trace to its file, the top kernels to `out`.
Result<Done> write_profile(plaidml_context* context, const std::string& path, std::ostream& out) {
  char* trace = nullptr;
  if (plaidml_context_profile_trace(context, &trace) != PLAIDML_STATUS_OK) {
    return runtime_error(std::string("profile: ") + plaidml_last_error_message());
  }
  std::string text(trace);
  plaidml_string_destroy(trace);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return runtime_error(path + ": cannot write the profile");
  char* table = nullptr;
  if (plaidml_context_profile_summary(context, 15, &table) != PLAIDML_STATUS_OK) {
    return runtime_error(std::string("profile: ") + plaidml_last_error_message());
  }
  out << "profile: " << path << "\n" << table;
  plaidml_string_destroy(table);
  return Done{};
}

}  // namespace

Result<Done> command_run(const RunOptions& options, std::ostream& out, std::ostream& err) {
  const std::string& path = options.program_path;
  std::vector<std::string> bound_at_import;
  auto program = load_for_run(options, &bound_at_import);
  if (!program) return program.error();
  if (auto names = check_input_names(path, program->get(), options.inputs, bound_at_import);
      !names) {
    return names.error();
  }
  auto files = planned_output_files(program->get(), options);
  if (!files) return files.error();
  auto context = create_context({options.device, options.threads});
  if (!context) return context.error();
  auto inputs = bind_inputs(context->get(), options, bound_at_import);
  if (!inputs) return inputs.error();

  if (options.memory) {
    if (auto shown = report_memory(context->get(), program->get(), *inputs, path, out); !shown) {
      return shown.error();
    }
  }
  if (!options.profile_path.empty()) plaidml_context_set_profiling(context->get(), true);
  std::vector<plaidml_buffer*> raw_outputs(program_output_names(program->get()).size(), nullptr);
  auto first = execute(context->get(), program->get(), *inputs, raw_outputs, path);
  if (!first) return first.error();
  std::vector<BufferPtr> outputs;
  for (plaidml_buffer* b : raw_outputs) outputs.emplace_back(b);

  std::vector<double> repeats;
  for (int i = 0; i < options.repeat; ++i) {
    auto seconds = execute(context->get(), program->get(), *inputs, raw_outputs, path);
    if (!seconds) return seconds.error();
    repeats.push_back(*seconds);
  }
  const char* device = "";
  if (plaidml_context_device(context->get(), &device) != PLAIDML_STATUS_OK) device = "?";
  out << "program: " << path << " on " << device << "\n";
  report_timings(context->get(), *first, repeats, out);
  if (!options.profile_path.empty()) {
    if (auto written = write_profile(context->get(), options.profile_path, out); !written) {
      return written.error();
    }
  }
  return report_outputs(program->get(), outputs, *files, options, out, err);
}

}  // namespace plaidml_cli
