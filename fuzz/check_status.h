// check_status: the C++ layers' Status under fuzz/check.h's rules (targets that call src/
// directly rather than the C ABI).
#pragma once

#include "check.h"
#include "core/base/status.h"

namespace plaidml::fuzz {

// A Status from the C++ layers: any code but INTERNAL, with a message when it is an error.
inline void check_status(const Status& status, const char* call) {
  if (status.is_ok()) return;
  if (status.code() == StatusCode::kInternal) {
    fail("INTERNAL status", std::string(call) + ": " + status.message());
  }
  if (status.message().empty()) fail("error without a message", call);
}

}  // namespace plaidml::fuzz
