// Programs: from Tile text, printing, input and output names.
#include <cstdlib>
#include <cstring>

#include "capi/errors.h"
#include "capi/handles.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::capi {
namespace {

Status index_check(const char* fn, const char* what, size_t index, size_t count) {
  if (index >= count) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: {} index {} is out of range (the program has {})", fn, what, index,
                      count);
  }
  return Status::ok();
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_program_from_tile(const char* tile_text, plaidml_program** out_program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(tile_text);
    PLAIDML_CAPI_REQUIRE(out_program);
    PLAIDML_ASSIGN(auto program, parse::parse_tile(tile_text));
    *out_program = new plaidml_program{std::move(program)};
    return Status::ok();
  });
}

void plaidml_program_destroy(plaidml_program* program) { delete program; }

plaidml_status plaidml_program_print(const plaidml_program* program, char** out_text) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_text);
    *out_text = capi::caller_string(ir::print_tile(*program->program));
    return Status::ok();
  });
}

plaidml_status plaidml_program_input_count(const plaidml_program* program, size_t* out_count) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_count);
    *out_count = program->program->inputs.size();
    return Status::ok();
  });
}

plaidml_status plaidml_program_input_name(const plaidml_program* program, size_t index,
                                          const char** out_name) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_name);
    const ir::Program& p = *program->program;
    PLAIDML_TRY(capi::index_check(fn, "input", index, p.inputs.size()));
    *out_name = p.nodes[p.inputs[index]].name.c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_program_output_count(const plaidml_program* program, size_t* out_count) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_count);
    *out_count = program->program->outputs.size();
    return Status::ok();
  });
}

plaidml_status plaidml_program_output_name(const plaidml_program* program, size_t index,
                                           const char** out_name) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_name);
    const ir::Program& p = *program->program;
    PLAIDML_TRY(capi::index_check(fn, "output", index, p.outputs.size()));
    *out_name = p.outputs[index].first.c_str();
    return Status::ok();
  });
}

}  // extern "C"
