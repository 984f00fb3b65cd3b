#include "capi_util.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "onnx_util.h"

namespace plaidml_cli {

Error api_error(const std::string& what) {
  return runtime_error(what + plaidml_last_error_message());
}

Error program_error(const std::string& path) {
  std::string message = plaidml_last_error_message();
  bool located = !message.empty() && std::isdigit(static_cast<unsigned char>(message[0]));
  return runtime_error(path + (located ? ":" : ": ") + message);
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return runtime_error(path + ": read failed");
  return text.str();
}

Result<ProgramPtr> load_program(const std::string& path, const std::vector<DimSpec>& dims) {
  if (is_onnx_path(path)) return load_onnx_program(path, dims);
  if (!dims.empty()) {
    return usage_error("--dim " + dims[0].name + "=" + std::to_string(dims[0].size) +
                       ": --dim applies to ONNX models (MODEL.onnx); " + path +
                       " is a Tile program, whose dims take their sizes from its inputs");
  }
  auto text = read_text_file(path);
  if (!text) return text.error();
  plaidml_program* program = nullptr;
  if (plaidml_program_from_tile(text->c_str(), &program) != PLAIDML_STATUS_OK) {
    return program_error(path);
  }
  return ProgramPtr(program);
}

namespace {

std::vector<std::string> names(const plaidml_program* program, bool inputs) {
  size_t count = 0;
  auto counter = inputs ? plaidml_program_input_count : plaidml_program_output_count;
  auto getter = inputs ? plaidml_program_input_name : plaidml_program_output_name;
  std::vector<std::string> out;
  if (counter(program, &count) != PLAIDML_STATUS_OK) return out;
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (getter(program, i, &name) == PLAIDML_STATUS_OK) out.emplace_back(name);
  }
  return out;
}

}  // namespace

std::vector<std::string> program_input_names(const plaidml_program* program) {
  return names(program, true);
}

std::vector<std::string> program_output_names(const plaidml_program* program) {
  return names(program, false);
}

Result<ContextPtr> create_context(const ContextSettings& settings) {
  plaidml_context_options* raw_options = nullptr;
  if (plaidml_context_options_create(&raw_options) != PLAIDML_STATUS_OK) return api_error("");
  std::unique_ptr<plaidml_context_options, void (*)(plaidml_context_options*)> options(
      raw_options, plaidml_context_options_destroy);
  if (settings.threads > 0 &&
      plaidml_context_options_set_int(options.get(), PLAIDML_CONTEXT_OPTION_NUM_THREADS,
                                      settings.threads) != PLAIDML_STATUS_OK) {
    return api_error("--threads: ");
  }
  if (!settings.device.empty() &&
      plaidml_context_options_set_string(options.get(), PLAIDML_CONTEXT_OPTION_DEVICE,
                                         settings.device.c_str()) != PLAIDML_STATUS_OK) {
    return api_error("--device: ");
  }
  plaidml_context* context = nullptr;
  if (plaidml_context_create(options.get(), &context) != PLAIDML_STATUS_OK) return api_error("");
  return ContextPtr(context);
}

Result<BufferPtr> buffer_from_array(plaidml_context* context, const NpyArray& array) {
  plaidml_buffer* buffer = nullptr;
  plaidml_status status = plaidml_buffer_create_from_host(
      context, static_cast<plaidml_dtype>(array.dtype), array.shape.size(), array.shape.data(),
      array.data.data(), array.data.size(), &buffer);
  if (status != PLAIDML_STATUS_OK) return api_error("");
  return BufferPtr(buffer);
}

Result<NpyArray> array_from_buffer(const plaidml_buffer* buffer) {
  plaidml_dtype dtype = 0;
  size_t rank = 0;
  size_t bytes = 0;
  if (plaidml_buffer_dtype(buffer, &dtype) != PLAIDML_STATUS_OK ||
      plaidml_buffer_rank(buffer, &rank) != PLAIDML_STATUS_OK ||
      plaidml_buffer_byte_size(buffer, &bytes) != PLAIDML_STATUS_OK) {
    return api_error("reading an output: ");
  }
  auto cli_dtype = dtype_from_abi(dtype);
  if (!cli_dtype) {
    return runtime_error("an output has dtype " + std::to_string(dtype) +
                         ", which this plaidml tool does not know (a newer library?)");
  }
  NpyArray array;
  array.dtype = *cli_dtype;
  array.shape.resize(rank);
  for (size_t axis = 0; axis < rank; ++axis) {
    if (plaidml_buffer_dim(buffer, axis, &array.shape[axis]) != PLAIDML_STATUS_OK) {
      return api_error("reading an output: ");
    }
  }
  array.data.resize(bytes);
  if (plaidml_buffer_read(buffer, array.data.data(), bytes) != PLAIDML_STATUS_OK) {
    return api_error("reading an output: ");
  }
  return array;
}

std::string join(const std::vector<std::string>& names, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
  return out;
}

}  // namespace plaidml_cli
