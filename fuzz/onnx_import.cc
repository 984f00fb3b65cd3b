// Fuzz target onnx_import: the ONNX importer (include/plaidml/onnx.h) on fuzzed model bytes,
// the serialized ModelProto an application hands plaidml_onnx_import_bytes.
//
// The input is the model's bytes. They are imported with channels-last layout on (the default)
// or off, chosen by the last byte so that the model bytes stay whole for the protobuf parser,
// and asked for the inputs they need. What imports is printed; a program without constants
// is parsed back from its text, which must print the same (the printer's promise, as in
// tile_text: imported names are the ones that need quoting). Findings: fuzz/check.h.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "c_round_trip.h"
#include "check.h"
#include "plaidml/onnx.h"

namespace plaidml::fuzz {
namespace {

// The printer's promise (fuzz/c_round_trip.h) for a program without constants: constants
// over 16 elements print by digest, which only a program file resolves.
void round_trip(const plaidml_program* program) {
  size_t constants = 0;
  uint64_t constant_bytes = 0;
  check_c(plaidml_program_constants(program, &constants, &constant_bytes), "program_constants");
  if (constants == 0) check_round_trip(program, "an imported program");
}

void import(const uint8_t* data, size_t size, bool channels_last) {
  plaidml_onnx_options* options = nullptr;
  check_c(plaidml_onnx_options_create(&options), "plaidml_onnx_options_create");
  check_c(plaidml_onnx_options_set_channels_last(options, channels_last), "set_channels_last");
  plaidml_program* program = nullptr;
  if (check_c(plaidml_onnx_import_bytes(data, size, options, &program),
              "plaidml_onnx_import_bytes") == PLAIDML_STATUS_OK) {
    round_trip(program);
  } else {
    char* names = nullptr;
    check_c(plaidml_onnx_needed_inputs_bytes(data, size, options, &names),
            "plaidml_onnx_needed_inputs_bytes");
    plaidml_string_destroy(names);
  }
  plaidml_program_destroy(program);
  plaidml_onnx_options_destroy(options);
}

}  // namespace
}  // namespace plaidml::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("PLAIDML_CACHE_DIR", "", 1);
  plaidml_set_log_level(PLAIDML_LOG_OFF);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool channels_last = size == 0 || (data[size - 1] & 1) == 0;
  plaidml::fuzz::import(data, size, channels_last);
  return 0;
}
