// What every fuzz target treats as a finding besides a crash, a hang or a leak (which libFuzzer
// and the sanitizers catch): a status of INTERNAL (a broken invariant: user input must never
// reach one), an error without a message, and a broken promise of the target's own (a round
// trip that changes the text, a device that disagrees with the reference interpreter). A
// finding prints what broke and traps, so libFuzzer saves the input as a crash.
#pragma once

#include <cstdio>
#include <string>

#include "plaidml/plaidml.h"

namespace plaidml::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz finding: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// A status of the C ABI: one of the header's codes, not INTERNAL, and an error has a message
// (plaidml_last_error_message).
inline plaidml_status check_c(plaidml_status status, const char* call) {
  if (status == PLAIDML_STATUS_OK) return status;
  const char* message = plaidml_last_error_message();
  if (status < 0 || status > PLAIDML_STATUS_IO_ERROR) {
    fail("status outside plaidml.h's codes", std::string(call) + ": " + message);
  }
  if (status == PLAIDML_STATUS_INTERNAL) {
    fail("INTERNAL status", std::string(call) + ": " + message);
  }
  if (message == nullptr || message[0] == '\0') fail("error without a message", call);
  return status;
}

}  // namespace plaidml::fuzz
