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

}  // namespace

Result<ProgramPtr> load_onnx_program(const std::string& path, const std::vector<DimSpec>& dims) {
  plaidml_onnx_options* raw = nullptr;
  if (plaidml_onnx_options_create(&raw) != PLAIDML_STATUS_OK) return onnx_error(path);
  OptionsPtr options(raw, plaidml_onnx_options_destroy);
  for (const auto& dim : dims) {
    // A name no input uses is reported by the import below, which knows the model's dims.
    if (plaidml_onnx_options_set_dim(options.get(), dim.name.c_str(), dim.size) !=
        PLAIDML_STATUS_OK) {
      return onnx_error(path);
    }
  }
  plaidml_program* program = nullptr;
  if (plaidml_onnx_import_file(path.c_str(), options.get(), &program) != PLAIDML_STATUS_OK) {
    return onnx_error(path);
  }
  return ProgramPtr(program);
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

Result<std::string> describe_onnx_model(const std::string& path) { return no_onnx(path); }

#endif

}  // namespace plaidml_cli
