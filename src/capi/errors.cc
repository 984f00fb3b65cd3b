// Status names, the thread-local last error, the version and caller-owned strings.
#include "capi/errors.h"

#include <cstdlib>

#include "core/base/status.h"

namespace plaidml::capi {
namespace {

struct LastError {
  std::string message;
  // Used when storing the message itself fails (out of memory): a static string.
  const char* fallback = nullptr;
};

LastError& last_error() {
  thread_local LastError error;
  return error;
}

// The C values equal StatusCode one for one (status.h says so); this checks it at compile time.
static_assert(PLAIDML_STATUS_OK == static_cast<int>(StatusCode::kOk));
static_assert(PLAIDML_STATUS_INVALID_ARGUMENT == static_cast<int>(StatusCode::kInvalidArgument));
static_assert(PLAIDML_STATUS_PARSE_ERROR == static_cast<int>(StatusCode::kParseError));
static_assert(PLAIDML_STATUS_TYPE_ERROR == static_cast<int>(StatusCode::kTypeError));
static_assert(PLAIDML_STATUS_NOT_FOUND == static_cast<int>(StatusCode::kNotFound));
static_assert(PLAIDML_STATUS_UNSUPPORTED == static_cast<int>(StatusCode::kUnsupported));
static_assert(PLAIDML_STATUS_OUT_OF_MEMORY == static_cast<int>(StatusCode::kOutOfMemory));
static_assert(PLAIDML_STATUS_DEVICE_ERROR == static_cast<int>(StatusCode::kDeviceError));
static_assert(PLAIDML_STATUS_INTERNAL == static_cast<int>(StatusCode::kInternal));
static_assert(PLAIDML_STATUS_IO_ERROR == static_cast<int>(StatusCode::kIoError));

}  // namespace

plaidml_status set_error(const Status& status) noexcept {
  LastError& error = last_error();
  try {
    error.message = status.message();
    error.fallback = nullptr;
  } catch (...) {
    error.fallback = "out of memory while recording an error message";
  }
  return static_cast<plaidml_status>(status.code());
}

Status null_argument(const char* fn, const char* arg) {
  return make_error(StatusCode::kInvalidArgument, "{}: argument '{}' is NULL", fn, arg);
}

char* caller_string(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

Status check_rank(const char* fn, size_t rank) {
  if (rank <= kMaxRank) return Status::ok();
  return make_error(StatusCode::kInvalidArgument,
                    "{}: rank {} is more than the {} dimensions a tensor may have", fn, rank,
                    kMaxRank);
}

Status check_struct_size(const char* fn, size_t size, const char* arg, const char* type) {
  if (size >= sizeof(size_t)) return Status::ok();
  return make_error(StatusCode::kInvalidArgument, "{}: {}->struct_size is {}; set it to sizeof({})",
                    fn, arg, size, type);
}

}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_set_last_error(plaidml_status status, const char* message) {
  plaidml::capi::LastError& error = plaidml::capi::last_error();
  try {
    error.message = message != nullptr ? message : "";
    error.fallback = nullptr;
  } catch (...) {
    error.fallback = "out of memory while recording an error message";
  }
  return status;
}

const char* plaidml_version(void) {
#define PLAIDML_CAPI_STR2(x) #x
#define PLAIDML_CAPI_STR(x) PLAIDML_CAPI_STR2(x)
  return PLAIDML_CAPI_STR(PLAIDML_VERSION_MAJOR) "." PLAIDML_CAPI_STR(
      PLAIDML_VERSION_MINOR) "." PLAIDML_CAPI_STR(PLAIDML_VERSION_PATCH);
}

const char* plaidml_status_name(plaidml_status status) {
  switch (status) {
    case PLAIDML_STATUS_OK:
      return "PLAIDML_STATUS_OK";
    case PLAIDML_STATUS_INVALID_ARGUMENT:
      return "PLAIDML_STATUS_INVALID_ARGUMENT";
    case PLAIDML_STATUS_PARSE_ERROR:
      return "PLAIDML_STATUS_PARSE_ERROR";
    case PLAIDML_STATUS_TYPE_ERROR:
      return "PLAIDML_STATUS_TYPE_ERROR";
    case PLAIDML_STATUS_NOT_FOUND:
      return "PLAIDML_STATUS_NOT_FOUND";
    case PLAIDML_STATUS_UNSUPPORTED:
      return "PLAIDML_STATUS_UNSUPPORTED";
    case PLAIDML_STATUS_OUT_OF_MEMORY:
      return "PLAIDML_STATUS_OUT_OF_MEMORY";
    case PLAIDML_STATUS_DEVICE_ERROR:
      return "PLAIDML_STATUS_DEVICE_ERROR";
    case PLAIDML_STATUS_INTERNAL:
      return "PLAIDML_STATUS_INTERNAL";
    case PLAIDML_STATUS_IO_ERROR:
      return "PLAIDML_STATUS_IO_ERROR";
  }
  return "PLAIDML_STATUS_UNKNOWN";
}

const char* plaidml_last_error_message(void) {
  const auto& error = plaidml::capi::last_error();
  return error.fallback != nullptr ? error.fallback : error.message.c_str();
}

void plaidml_string_destroy(char* str) { std::free(str); }

}  // extern "C"
