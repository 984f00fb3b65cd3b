// plaidml_program_gradient: reverse-mode autodiff (core/autodiff) behind the C ABI.
#include "core/autodiff/gradient.h"

#include "capi/errors.h"
#include "capi/handles.h"

extern "C" {

plaidml_status plaidml_program_gradient(const plaidml_program* program, const char* loss,
                                        size_t wrt_count, const char* const* wrt_names,
                                        const char* const* grad_names,
                                        plaidml_program** out_program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(loss);
    PLAIDML_CAPI_REQUIRE(out_program);
    if (wrt_count > 0) PLAIDML_CAPI_REQUIRE(wrt_names);
    std::vector<std::string> wrt, names;
    for (size_t i = 0; i < wrt_count; ++i) {
      if (wrt_names[i] == nullptr) {
        return make_error(StatusCode::kInvalidArgument, "{}: wrt_names[{}] is NULL", fn, i);
      }
      wrt.emplace_back(wrt_names[i]);
      if (grad_names == nullptr) continue;
      if (grad_names[i] == nullptr) {
        return make_error(StatusCode::kInvalidArgument, "{}: grad_names[{}] is NULL", fn, i);
      }
      names.emplace_back(grad_names[i]);
    }
    PLAIDML_ASSIGN(auto result, autodiff::gradient(*program->program, loss, wrt, names));
    *out_program = new plaidml_program{std::move(result)};
    return Status::ok();
  });
}

}  // extern "C"
