// Programs in files: saved and loaded by path, and kept in the disk cache folder under a key.
#include "capi/errors.h"
#include "capi/handles.h"
#include "core/parse/program_file.h"
#include "jit/program_cache.h"

extern "C" {

plaidml_status plaidml_program_save(const plaidml_program* program, const char* path) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(path);
    return parse::save_program(*program->program, path);
  });
}

plaidml_status plaidml_program_load(const char* path, plaidml_program** out_program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(path);
    PLAIDML_CAPI_REQUIRE(out_program);
    PLAIDML_ASSIGN(auto program, parse::load_program(path));
    *out_program = new plaidml_program{std::move(program)};
    return Status::ok();
  });
}

plaidml_status plaidml_program_cache_store(const char* key, const plaidml_program* program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(key);
    PLAIDML_CAPI_REQUIRE(program);
    jit::store_cached_program(key, *program->program);
    return Status::ok();
  });
}

plaidml_status plaidml_program_cache_load(const char* key, plaidml_program** out_program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(key);
    PLAIDML_CAPI_REQUIRE(out_program);
    *out_program = nullptr;
    if (auto program = jit::load_cached_program(key)) {
      *out_program = new plaidml_program{std::move(program)};
    }
    return Status::ok();
  });
}

}  // extern "C"
