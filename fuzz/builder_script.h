// The builder_calls target's parts: ScriptValues chooses each call's arguments from the fuzz
// bytes (builder_args.cc); use_program does what a caller does with a built program
// (builder_run.cc).
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plaidml/plaidml.h"

namespace plaidml::fuzz {

struct InputDecl {
  std::string name;
  std::vector<std::optional<std::string>> dims;  // nullopt: a NULL entry (an unnamed dim)
  bool unknown_rank = false;
  std::optional<size_t> rank_override;  // a rank the call must refuse (65, SIZE_MAX)
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
};

struct ConstantArgs {
  std::string name;
  plaidml_dtype dtype = PLAIDML_DTYPE_FLOAT32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;  // usually the shape's byte size, now and then not
  int64_t elements = 0;
};

class ScriptValues {
 public:
  explicit ScriptValues(FuzzedDataProvider& bytes) : b(bytes) {}

  // What the builder gave so far.
  std::vector<plaidml_value> values;
  std::vector<plaidml_expr> exprs;

  // Mostly one the builder gave, sometimes an id it never gave.
  plaidml_value value();
  plaidml_expr expr();
  std::vector<plaidml_value> some_values(size_t max);
  std::vector<plaidml_expr> some_exprs(size_t max);

  int64_t int_value();
  double float_value();
  std::string name();
  const char* maybe_null(const std::string& s);  // s.c_str(), or NULL now and then
  std::string index_name();
  std::string dim_name();
  std::string output_name();
  std::string function_name();  // plaidml_function_name's, or one it does not know
  std::string op_name();        // plaidml_op_name's, or one it does not know
  InputDecl input_decl(int index);
  ConstantArgs constant_args();
  plaidml_attrs* attrs();  // the caller destroys it; NULL now and then

  FuzzedDataProvider& b;
};

// Prints the program and parses the text back (when round_trip: no constant too large to
// print), which must give the same text; asks for a gradient; and now and then runs it on the
// CPU at shapes the program's declared inputs allow.
void use_program(const plaidml_program* program, bool round_trip, ScriptValues& s);

}  // namespace plaidml::fuzz
