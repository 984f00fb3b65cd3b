#include "core/base/status.h"

#include <new>

namespace plaidml {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kParseError: return "parse error";
    case StatusCode::kTypeError: return "type error";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kDeviceError: return "device error";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kIoError: return "i/o error";
  }
  return "unknown status";
}

void throw_if_out_of_memory(const Status& status) {
  if (status.code() == StatusCode::kOutOfMemory) throw std::bad_alloc();
}

}  // namespace plaidml
