// Status and Expected<T>: how every fallible function in plaidml reports a user error.
// Codes mirror plaidml_status in include/plaidml/plaidml.h one for one (append-only).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace plaidml {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // NULL handle, bad option, wrong buffer size, bad call sequence
  kParseError = 2,       // malformed Tile text (message carries line:column)
  kTypeError = 3,        // dtype, rank, dimension or broadcasting mismatch
  kNotFound = 4,         // unknown tensor, input, output, device or op name
  kUnsupported = 5,      // valid program the chosen device cannot run
  kOutOfMemory = 6,
  kDeviceError = 7,      // driver or device failure during compile, load or launch
  kInternal = 8,         // a broken invariant inside plaidml (a bug: please report)
  kIoError = 9,          // file read/write failure (CLI, npy, cache)
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes context ("while compiling 'C': ") to the message, keeping the code.
  Status with_context(const std::string& context) const {
    if (is_ok()) return *this;
    return Status(code_, context + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename... Args>
Status make_error(StatusCode code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}

// For code that logs its failures and goes on without (a cache, a device listing): running out
// of memory is not its to absorb, and goes up as std::bad_alloc (the C API's OUT_OF_MEMORY).
void throw_if_out_of_memory(const Status& status);

// A value or an error Status.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : storage_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Status status) : storage_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(storage_).is_ok() && "Expected built from an OK status");
  }

  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<T>(storage_); }
  const T& value() const& { return std::get<T>(storage_); }
  T&& value() && { return std::get<T>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const {
    static const Status kOk;
    return has_value() ? kOk : std::get<Status>(storage_);
  }

 private:
  std::variant<T, Status> storage_;
};

}  // namespace plaidml

// Early-return helpers. PLAIDML_TRY(status_expr); PLAIDML_ASSIGN(var, expected_expr);
#define PLAIDML_CONCAT_INNER(a, b) a##b
#define PLAIDML_CONCAT(a, b) PLAIDML_CONCAT_INNER(a, b)
#define PLAIDML_TRY(expr)                           \
  do {                                              \
    ::plaidml::Status plaidml_try_status_ = (expr); \
    if (!plaidml_try_status_.is_ok()) return plaidml_try_status_; \
  } while (0)
#define PLAIDML_ASSIGN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                         \
  if (!tmp.has_value()) return tmp.status(); \
  decl = std::move(tmp).value()
#define PLAIDML_ASSIGN(decl, expr) \
  PLAIDML_ASSIGN_IMPL(PLAIDML_CONCAT(plaidml_assign_tmp_, __LINE__), decl, expr)
