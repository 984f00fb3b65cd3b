#include "bench_capi.h"

namespace plaidml_bench {

Failure api_failure(const std::string& what, plaidml_status status) {
  return Failure{what + ": " + plaidml_status_name(status) + ": " + plaidml_last_error_message()};
}

plaidml_stats context_stats(const plaidml_context* context) {
  plaidml_stats stats{};
  stats.struct_size = sizeof stats;
  if (plaidml_context_stats(context, &stats) != PLAIDML_STATUS_OK) {
    stats = plaidml_stats{};
    stats.struct_size = sizeof stats;
  }
  return stats;
}

std::string describe_devices(const plaidml_context* context) {
  size_t count = 0;
  if (plaidml_device_count(context, &count) != PLAIDML_STATUS_OK) return "?";
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    const char* id = "?";
    const char* reason = "";
    bool available = false;
    plaidml_device_id(context, i, &id);
    plaidml_device_available(context, i, &available, &reason);
    if (!text.empty()) text += ", ";
    text += std::string(id) +
            (available ? " (available)" : " (unavailable: " + std::string(reason) + ")");
  }
  return text;
}

std::string selected_device_name(const plaidml_context* context) {
  const char* selected = nullptr;
  size_t count = 0;
  if (plaidml_context_device(context, &selected) != PLAIDML_STATUS_OK ||
      plaidml_device_count(context, &count) != PLAIDML_STATUS_OK) {
    return "";
  }
  for (size_t i = 0; i < count; ++i) {
    const char* id = nullptr;
    const char* name = nullptr;
    if (plaidml_device_id(context, i, &id) == PLAIDML_STATUS_OK && std::string(id) == selected &&
        plaidml_device_name(context, i, &name) == PLAIDML_STATUS_OK) {
      return name;
    }
  }
  return "";
}

// The context is created on the CPU first and then switched: a failed switch leaves a context
// that can still list the devices, so the message says which ones exist and why others do not.
Outcome<ContextPtr> open_context(const std::string& device_id, int num_threads) {
  plaidml_context_options* raw_options = nullptr;
  plaidml_status status = plaidml_context_options_create(&raw_options);
  if (status != PLAIDML_STATUS_OK) return api_failure("creating context options", status);
  std::unique_ptr<plaidml_context_options, void (*)(plaidml_context_options*)> options(
      raw_options, plaidml_context_options_destroy);
  status = plaidml_context_options_set_int(options.get(), PLAIDML_CONTEXT_OPTION_NUM_THREADS,
                                           num_threads);
  if (status != PLAIDML_STATUS_OK) return api_failure("setting the thread count", status);
  plaidml_context* raw = nullptr;
  status = plaidml_context_create(options.get(), &raw);
  if (status != PLAIDML_STATUS_OK) return api_failure("creating a context", status);
  ContextPtr context(raw);
  status = plaidml_context_select_device(context.get(), device_id.c_str());
  if (status != PLAIDML_STATUS_OK) {
    Failure failure = api_failure("selecting device " + device_id, status);
    failure.message += " [devices: " + describe_devices(context.get()) + "]";
    return failure;
  }
  return context;
}

}  // namespace plaidml_bench
