// Profiling entry points (plaidml_context_set_profiling and the profile getters): thin calls
// onto the context's jit::Profiler.
#include "capi/errors.h"
#include "capi/handles.h"

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
    *out_json = capi::caller_string(context->runtime->profiler().chrome_trace());
    return Status::ok();
  });
}

plaidml_status plaidml_context_profile_summary(plaidml_context* context, size_t top,
                                               char** out_text) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_text);
    *out_text = capi::caller_string(context->runtime->profiler().summary(top));
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
