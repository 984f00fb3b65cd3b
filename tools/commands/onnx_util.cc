#include "onnx_util.h"

#include <algorithm>
#include <cctype>
#include <memory>

#ifdef PLAIDML_CLI_HAVE_ONNX
#include <plaidml/onnx.h>
#endif

namespace plaidml_cli {

bool is_onnx_path(const std::string& path) {
  static const std::string kSuffix = ".onnx";
  if (path.size() < kSuffix.size()) return false;
  return std::equal(
      kSuffix.begin(), kSuffix.end(), path.end() - kSuffix.size(),
      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

#ifdef PLAIDML_CLI_HAVE_ONNX

namespace {

// libplaidml_onnx prefixes its messages with the C function's name ("plaidml_onnx_import_file:
// ..."); on the command line the path says what failed, so the prefix is dropped.
Error onnx_error(const std::string& path) {
  std::string message = plaidml_last_error_message();
  if (message.rfind("plaidml_onnx_", 0) == 0) {
    size_t colon = message.find(": ");
    if (colon != std::string::npos) message = message.substr(colon + 2);
  }
  return runtime_error(path + ": " + message);
}

using OptionsPtr = std::unique_ptr<plaidml_onnx_options, decltype(&plaidml_onnx_options_destroy)>;

Result<OptionsPtr> make_options(const std::string& path, const std::vector<DimSpec>& dims) {
  plaidml_onnx_options* raw = nullptr;
  if (plaidml_onnx_options_create(&raw) != PLAIDML_STATUS_OK) return onnx_error(path);
  OptionsPtr options(raw, plaidml_onnx_options_destroy);
  for (const auto& dim : dims) {
    // A name no input uses is reported by the import, which knows the model's dims.
    if (plaidml_onnx_options_set_dim(options.get(), dim.name.c_str(), dim.size) !=
        PLAIDML_STATUS_OK) {
      return onnx_error(path);
    }
  }
  return options;
}

Result<ProgramPtr> import_file(const std::string& path, const plaidml_onnx_options* options) {
  plaidml_program* program = nullptr;
  if (plaidml_onnx_import_file(path.c_str(), options, &program) != PLAIDML_STATUS_OK) {
    return onnx_error(path);
  }
  return ProgramPtr(program);
}

// The inputs the import still needs bound, that are not bound yet.
Result<std::vector<std::string>> more_needed_inputs(const std::string& path,
                                                    const plaidml_onnx_options* options,
                                                    const std::vector<std::string>& bound) {
  char* text = nullptr;
  if (plaidml_onnx_needed_inputs_file(path.c_str(), options, &text) != PLAIDML_STATUS_OK) {
    return onnx_error(path);
  }
  std::unique_ptr<char, void (*)(char*)> owned(text, plaidml_string_destroy);
  std::vector<std::string> names;
  std::string all(text);
  for (size_t start = 0, end; (end = all.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string name = all.substr(start, end - start);
    if (std::find(bound.begin(), bound.end(), name) == bound.end()) names.push_back(name);
  }
  return names;
}

}  // namespace

Result<ProgramPtr> load_onnx_program(const std::string& path, const std::vector<DimSpec>& dims) {
  auto options = make_options(path, dims);
  if (!options) return options.error();
  return import_file(path, options->get());
}

Result<BoundOnnxProgram> load_onnx_program_binding(const std::string& path,
                                                   const std::vector<DimSpec>& dims,
                                                   const InputReader& read_input) {
  auto options = make_options(path, dims);
  if (!options) return options.error();
  BoundOnnxProgram result;
  for (;;) {
    // Imported first: the question of which inputs are needed (another import) is only asked
    // of a model that does not import as it is.
    plaidml_program* program = nullptr;
    plaidml_status status = plaidml_onnx_import_file(path.c_str(), options->get(), &program);
    if (status == PLAIDML_STATUS_OK) {
      result.program = ProgramPtr(program);
      return result;
    }
    Error failure = onnx_error(path);
    if (status != PLAIDML_STATUS_UNSUPPORTED) return failure;
    auto needed = more_needed_inputs(path, options->get(), result.bound);
    if (!needed) return needed.error();
    if (needed->empty()) return failure;
    for (const std::string& name : *needed) {
      auto array = read_input(name);
      if (!array) return array.error();
      if (plaidml_onnx_options_set_input_value(
              options->get(), name.c_str(), static_cast<plaidml_dtype>(array->dtype),
              array->shape.size(), array->shape.data(), array->data.data(),
              array->data.size()) != PLAIDML_STATUS_OK) {
        return onnx_error(path);
      }
      result.bound.push_back(name);
    }
  }
}

Result<std::string> describe_onnx_model(const std::string& path) {
  char* text = nullptr;
  if (plaidml_onnx_describe_file(path.c_str(), &text) != PLAIDML_STATUS_OK) {
    return onnx_error(path);
  }
  std::unique_ptr<char, void (*)(char*)> owned(text, plaidml_string_destroy);
  return std::string(text);
}

#else  // built without libplaidml_onnx

namespace {

Error no_onnx(const std::string& path) {
  return runtime_error(path +
                       ": this plaidml was built without ONNX support (PLAIDML_BUILD_ONNX=OFF)");
}

}  // namespace

Result<ProgramPtr> load_onnx_program(const std::string& path, const std::vector<DimSpec>&) {
  return no_onnx(path);
}

Result<BoundOnnxProgram> load_onnx_program_binding(const std::string& path,
                                                   const std::vector<DimSpec>&,
                                                   const InputReader&) {
  return no_onnx(path);
}

Result<std::string> describe_onnx_model(const std::string& path) { return no_onnx(path); }

#endif

}  // namespace plaidml_cli
