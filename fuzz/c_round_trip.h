// The printer's promise through the C ABI (plaidml_program_print): the text of a program
// parses back to a program that prints the same text. For the targets that build programs by
// calls (builder_calls, onnx_import); the caller skips programs whose constants are too large
// to print their values.
#pragma once

#include <string>

#include "check.h"

namespace plaidml::fuzz {

// A printed program; NULL when printing failed (check_c has judged the status).
inline std::string print_or_fail(const plaidml_program* program, const char* what) {
  char* text = nullptr;
  check_c(plaidml_program_print(program, &text), "plaidml_program_print");
  if (text == nullptr) fail("plaidml_program_print gave no text", what);
  std::string out = text;
  plaidml_string_destroy(text);
  return out;
}

// parse(text), printed; a finding when it does not parse.
inline std::string reprint(const std::string& text, const char* what) {
  plaidml_program* again = nullptr;
  if (plaidml_program_from_tile(text.c_str(), &again) != PLAIDML_STATUS_OK) {
    fail(what, std::string("printed text does not parse back: ") + plaidml_last_error_message() +
                   "\n" + text);
  }
  std::string out = print_or_fail(again, what);
  plaidml_program_destroy(again);
  return out;
}

// A dim expression used as a value (plaidml_builder_dim_constant of `2 * N`, as the op
// library's argmax makes one) prints in parentheses, which the parser reads back as that one
// value: the text is the same after a round trip, with no exception.
inline void check_round_trip(const plaidml_program* program, const char* what) {
  std::string first = print_or_fail(program, what);
  std::string second = reprint(first, what);
  if (second != first) {
    fail(what, "print(parse(print(p))) != print(p):\n" + first + "---\n" + second);
  }
}

}  // namespace plaidml::fuzz
