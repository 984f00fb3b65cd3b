// Context options, contexts, device enumeration and selection, statistics.
#include <cstring>

#include "capi/errors.h"
#include "capi/handles.h"

namespace plaidml::capi {
namespace {

Status device_index_check(const char* fn, const plaidml_context& context, size_t index) {
  size_t count = context.runtime->devices().size();
  if (index >= count) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: device index {} is out of range (the context has {} device{})", fn,
                      index, count, count == 1 ? "" : "s");
  }
  return Status::ok();
}

const char* option_name(plaidml_context_option key) {
  switch (key) {
    case PLAIDML_CONTEXT_OPTION_NUM_THREADS: return "PLAIDML_CONTEXT_OPTION_NUM_THREADS";
    case PLAIDML_CONTEXT_OPTION_DEVICE: return "PLAIDML_CONTEXT_OPTION_DEVICE";
    case PLAIDML_CONTEXT_OPTION_CACHE_DIR: return "PLAIDML_CONTEXT_OPTION_CACHE_DIR";
    case PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT: return "PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT";
    default: return "an unknown option";
  }
}

const jit::DeviceDescription& device_at(const plaidml_context& context, size_t index) {
  return context.runtime->devices()[index];
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_context_options_create(plaidml_context_options** out_options) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_options);
    *out_options = new plaidml_context_options();
    return Status::ok();
  });
}

void plaidml_context_options_destroy(plaidml_context_options* options) { delete options; }

plaidml_status plaidml_context_options_set_int(plaidml_context_options* options,
                                               plaidml_context_option key, int64_t value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(options);
    if (key == PLAIDML_CONTEXT_OPTION_NUM_THREADS) {
      if (value < 0 || value > 4096) {
        return make_error(StatusCode::kInvalidArgument,
                          "{}: PLAIDML_CONTEXT_OPTION_NUM_THREADS must be in 0..4096, got {}", fn,
                          value);
      }
      options->options.num_threads = static_cast<int>(value);
      return Status::ok();
    }
    if (key == PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT) {
      if (value < 0) {
        return make_error(StatusCode::kInvalidArgument,
                          "{}: PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT must be a number of bytes >= 0 "
                          "(0: the default), got {}",
                          fn, value);
      }
      options->options.memory_limit = value;
      return Status::ok();
    }
    if (key == PLAIDML_CONTEXT_OPTION_DEVICE || key == PLAIDML_CONTEXT_OPTION_CACHE_DIR) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: {} takes a string: use plaidml_context_options_set_string", fn,
                        capi::option_name(key));
    }
    return make_error(StatusCode::kInvalidArgument, "{}: unknown context option key {}", fn, key);
  });
}

plaidml_status plaidml_context_options_set_string(plaidml_context_options* options,
                                                  plaidml_context_option key, const char* value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(options);
    PLAIDML_CAPI_REQUIRE(value);
    if (key == PLAIDML_CONTEXT_OPTION_DEVICE) {
      options->options.device = value;
      return Status::ok();
    }
    if (key == PLAIDML_CONTEXT_OPTION_CACHE_DIR) {
      options->options.cache_dir = value;
      return Status::ok();
    }
    if (key == PLAIDML_CONTEXT_OPTION_NUM_THREADS || key == PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: {} takes an integer: use plaidml_context_options_set_int", fn,
                        capi::option_name(key));
    }
    return make_error(StatusCode::kInvalidArgument, "{}: unknown context option key {}", fn, key);
  });
}

plaidml_status plaidml_context_create(const plaidml_context_options* options,
                                      plaidml_context** out_context) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_context);
    jit::RuntimeOptions runtime_options;
    if (options != nullptr) runtime_options = options->options;
    PLAIDML_ASSIGN(std::unique_ptr<jit::Runtime> runtime, jit::Runtime::create(runtime_options));
    PLAIDML_ASSIGN(int device, runtime->find_device(""));
    auto context = std::make_unique<plaidml_context>();
    context->runtime = std::move(runtime);
    context->device.store(device);
    *out_context = context.release();
    return Status::ok();
  });
}

void plaidml_context_destroy(plaidml_context* context) { delete context; }

plaidml_status plaidml_device_count(const plaidml_context* context, size_t* out_count) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_count);
    *out_count = context->runtime->devices().size();
    return Status::ok();
  });
}

plaidml_status plaidml_device_id(const plaidml_context* context, size_t index,
                                 const char** out_id) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_id);
    PLAIDML_TRY(capi::device_index_check(fn, *context, index));
    *out_id = capi::device_at(*context, index).id.c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_device_name(const plaidml_context* context, size_t index,
                                   const char** out_name) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_name);
    PLAIDML_TRY(capi::device_index_check(fn, *context, index));
    *out_name = capi::device_at(*context, index).name.c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_device_available(const plaidml_context* context, size_t index,
                                        bool* out_available, const char** out_reason) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_available);
    PLAIDML_TRY(capi::device_index_check(fn, *context, index));
    const auto& device = capi::device_at(*context, index);
    *out_available = device.available;
    if (out_reason != nullptr) *out_reason = device.unavailable_reason.c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_context_select_device(plaidml_context* context, const char* device_id) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(device_id);
    PLAIDML_ASSIGN(int device, context->runtime->find_device(device_id));
    context->device.store(device);
    return Status::ok();
  });
}

plaidml_status plaidml_context_device(const plaidml_context* context, const char** out_device_id) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_device_id);
    *out_device_id = capi::device_at(*context, context->device.load()).id.c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_context_stats(const plaidml_context* context, plaidml_stats* out_stats) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_stats);
    PLAIDML_TRY(capi::check_struct_size(fn, out_stats->struct_size, "out_stats", "plaidml_stats"));
    jit::CacheStats stats = context->runtime->stats();
    plaidml_stats full{};
    full.compiles = stats.compiles;
    full.cache_hits = stats.cache_hits;
    full.compile_seconds = stats.compile_seconds;
    full.last_compile_seconds = stats.last_compile_seconds;
    full.kernels_compiled = stats.kernels_compiled;
    full.kernel_memory_hits = stats.artifact_memory_hits;
    full.disk_hits = stats.disk_hits;
    full.disk_misses = stats.disk_misses;
    full.disk_invalid = stats.disk_invalid;
    full.disk_writes = stats.disk_writes;
    full.disk_write_failures = stats.disk_write_failures;
    full.constant_uploads = stats.constant_uploads;
    full.constant_bytes = stats.constant_bytes;
    full.plan_disk_hits = stats.plan_disk_hits;
    full.plan_disk_misses = stats.plan_disk_misses;
    full.plan_disk_writes = stats.plan_disk_writes;
    full.kernel_library_hits = stats.kernel_library_hits;
    capi::copy_versioned(out_stats, full, out_stats->struct_size);
    return Status::ok();
  });
}

plaidml_status plaidml_context_cache_dir(const plaidml_context* context, const char** out_dir) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_dir);
    *out_dir = context->runtime->cache_dir().c_str();
    return Status::ok();
  });
}

}  // extern "C"
