// Profiling entry points (plaidml_context_set_profiling and the profile getters): thin calls
// onto the context's jit::Profiler.
#include <cstdlib>
#include <cstring>

#include "capi/errors.h"
#include "capi/handles.h"

namespace {

// A copy the caller frees with plaidml_string_destroy (which calls free()).
char* malloc_copy(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

}  // namespace

extern "C" {

plaidml_status plaidml_context_set_profiling(plaidml_context* context, bool enabled) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    context->runtime->profiler().set_enabled(enabled);
    return Status::ok();
  });
}

plaidml_status plaidml_context_profile_trace(plaidml_context* context, char** out_json) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_json);
    *out_json = malloc_copy(context->runtime->profiler().chrome_trace());
    return Status::ok();
  });
}

plaidml_status plaidml_context_profile_summary(plaidml_context* context, size_t top,
                                               char** out_text) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_text);
    *out_text = malloc_copy(context->runtime->profiler().summary(top));
    return Status::ok();
  });
}

plaidml_status plaidml_context_profile_clear(plaidml_context* context) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    context->runtime->profiler().clear();
    return Status::ok();
  });
}

}  // extern "C"
