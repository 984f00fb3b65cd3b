// The C entry points of libplaidml_onnx (include/plaidml/onnx.h): the one place that catches.
// Every error becomes a status and the thread's last error message, set through libplaidml's
// plaidml_set_last_error, so callers read ONNX errors exactly like every other plaidml error.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "describe.h"
#include "graph_importer.h"
#include "import_cache.h"
#include "import_error.h"
#include "model_loader.h"
#include "plaidml/onnx.h"

struct plaidml_onnx_options {
  plaidml::onnx_import::ImportOptions options;
};

namespace plaidml::onnx_import {
namespace {

template <typename Body>
plaidml_status guard(const char* fn, Body&& body) noexcept {
  try {
    body();
    return PLAIDML_STATUS_OK;
  } catch (const ImportError& e) {
    return plaidml_set_last_error(e.status(), (std::string(fn) + ": " + e.what()).c_str());
  } catch (const plaidml::Error& e) {
    return plaidml_set_last_error(e.status(), (std::string(fn) + ": " + e.what()).c_str());
  } catch (const std::bad_alloc&) {
    return plaidml_set_last_error(PLAIDML_STATUS_OUT_OF_MEMORY,
                                  (std::string(fn) + ": out of memory").c_str());
  } catch (const std::exception& e) {
    return plaidml_set_last_error(
        PLAIDML_STATUS_INTERNAL,
        (std::string(fn) + ": internal error (please report): " + e.what()).c_str());
  } catch (...) {
    return plaidml_set_last_error(PLAIDML_STATUS_INTERNAL,
                                  (std::string(fn) + ": internal error (please report)").c_str());
  }
}

void require(const void* p, const char* fn, const char* arg) {
  if (p == nullptr) invalid("argument '{}' is NULL", arg);
  (void)fn;
}

plaidml_program* import_loaded(const LoadedModel& loaded, const plaidml_onnx_options* options) {
  ExternalData external(loaded.folder);
  ImportOptions defaults;
  GraphImporter importer(loaded.model, &external,
                         options != nullptr ? options->options : defaults);
  return importer.import();
}

// The model from the import cache (import_cache.h), else imported and then cached.
plaidml_program* import_file(const char* path, const plaidml_onnx_options* options) {
  ImportOptions defaults;
  const ImportOptions& chosen = options != nullptr ? options->options : defaults;
  std::optional<std::string> key = chosen.cache ? import_cache_key(path, chosen) : std::nullopt;
  plaidml_program* program = nullptr;
  if (key && plaidml_program_cache_load(key->c_str(), &program) == PLAIDML_STATUS_OK &&
      program != nullptr) {
    return program;
  }
  LoadedModel loaded = load_model_file(path);
  ExternalData external(loaded.folder);
  program = GraphImporter(loaded.model, &external, chosen).import();
  if (key && !external.used()) plaidml_program_cache_store(key->c_str(), program);
  return program;
}

// The graph inputs a failed import would need bound to values ("" when it imports, or when
// binding cannot help), one name a line.
std::string needed_inputs(const LoadedModel& loaded, const plaidml_onnx_options* options) {
  ExternalData external(loaded.folder);
  ImportOptions defaults;
  GraphImporter importer(loaded.model, &external,
                         options != nullptr ? options->options : defaults);
  try {
    plaidml_program_destroy(importer.import());
  } catch (const ImportError& e) {
    if (e.status() != PLAIDML_STATUS_UNSUPPORTED) throw;
  }
  std::string names;
  for (const std::string& name : importer.needed_inputs()) names += name + "\n";
  return names;
}

HostTensor copy_value(plaidml_dtype dtype, size_t rank, const int64_t* dims, const void* data,
                      size_t size) {
  if (dtype_bytes(dtype) == 0) invalid("dtype {} is not a tensor element type", int(dtype));
  if (rank > 0 && dims == nullptr) invalid("argument 'dims' is NULL");
  std::vector<int64_t> shape(dims, dims + rank);
  int64_t elements = element_count(shape);
  if (elements < 0) invalid("dims [{}] are negative or too large", fmt::join(shape, ", "));
  size_t expected = static_cast<size_t>(elements) * dtype_bytes(dtype);
  if (size != expected) {
    invalid("{} bytes given for {} [{}], which takes {}", size, dtype_text(dtype),
            fmt::join(shape, ", "), expected);
  }
  if (size > 0 && data == nullptr) invalid("argument 'data' is NULL");
  HostTensor value = HostTensor::zeros(dtype, shape);
  if (size > 0) std::memcpy(value.mutable_data(), data, size);
  return value;
}

char* copy_string(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace
}  // namespace plaidml::onnx_import

extern "C" {

plaidml_status plaidml_onnx_options_create(plaidml_onnx_options** out_options) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(out_options, __func__, "out_options");
    *out_options = new plaidml_onnx_options();
  });
}

void plaidml_onnx_options_destroy(plaidml_onnx_options* options) { delete options; }

plaidml_status plaidml_onnx_options_set_dim(plaidml_onnx_options* options, const char* name,
                                            int64_t size) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(options, __func__, "options");
    require(name, __func__, "name");
    if (*name == '\0') invalid("the dimension name is empty");
    if (size < 0) invalid("dimension '{}' cannot have the negative size {}", name, size);
    options->options.dims[name] = size;
  });
}

plaidml_status plaidml_onnx_options_set_channels_last(plaidml_onnx_options* options,
                                                     bool enabled) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(options, __func__, "options");
    options->options.channels_last = enabled;
  });
}

plaidml_status plaidml_onnx_options_set_cache(plaidml_onnx_options* options, bool enabled) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(options, __func__, "options");
    options->options.cache = enabled;
  });
}

plaidml_status plaidml_onnx_options_set_input_value(plaidml_onnx_options* options,
                                                    const char* name, plaidml_dtype dtype,
                                                    size_t rank, const int64_t* dims,
                                                    const void* data, size_t size) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(options, __func__, "options");
    require(name, __func__, "name");
    if (*name == '\0') invalid("the input name is empty");
    HostTensor value = copy_value(dtype, rank, dims, data, size);
    options->options.values.insert_or_assign(name, std::move(value));
  });
}

plaidml_status plaidml_onnx_needed_inputs_bytes(const void* data, size_t size,
                                                const plaidml_onnx_options* options,
                                                char** out_names) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(out_names, __func__, "out_names");
    if (size > 0) require(data, __func__, "data");
    *out_names = copy_string(needed_inputs(parse_model_bytes(data, size), options));
  });
}

plaidml_status plaidml_onnx_needed_inputs_file(const char* path,
                                               const plaidml_onnx_options* options,
                                               char** out_names) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(path, __func__, "path");
    require(out_names, __func__, "out_names");
    *out_names = copy_string(needed_inputs(load_model_file(path), options));
  });
}

plaidml_status plaidml_onnx_import_bytes(const void* data, size_t size,
                                         const plaidml_onnx_options* options,
                                         plaidml_program** out_program) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(out_program, __func__, "out_program");
    if (size > 0) require(data, __func__, "data");
    *out_program = import_loaded(parse_model_bytes(data, size), options);
  });
}

plaidml_status plaidml_onnx_import_file(const char* path, const plaidml_onnx_options* options,
                                        plaidml_program** out_program) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(path, __func__, "path");
    require(out_program, __func__, "out_program");
    *out_program = import_file(path, options);
  });
}

plaidml_status plaidml_onnx_describe_file(const char* path, char** out_text) {
  using namespace plaidml::onnx_import;
  return guard(__func__, [&] {
    require(path, __func__, "path");
    require(out_text, __func__, "out_text");
    LoadedModel loaded = load_model_file(path);
    *out_text = copy_string(describe_model(loaded.model, loaded.folder));
  });
}

}  // extern "C"
