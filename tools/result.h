// Result<T>: a value or a CLI error. The CLI sees only the public C API, so it keeps its own small
// error type instead of src/core/base/status.h; the exit code travels with the message.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace plaidml_cli {

// Exit statuses of the `plaidml` command (documented in --help).
enum class ExitCode : int {
  kOk = 0,
  kRuntime = 1,  // the command was well formed but failed (I/O, parse, shape, device errors)
  kUsage = 2,    // bad command line: unknown option, missing argument, malformed --input spec
};

struct Error {
  ExitCode code = ExitCode::kRuntime;
  std::string message;
};

inline Error usage_error(std::string message) {
  return Error{ExitCode::kUsage, std::move(message)};
}
inline Error runtime_error(std::string message) {
  return Error{ExitCode::kRuntime, std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : storage_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(storage_); }
  const T& value() const& { return std::get<0>(storage_); }
  T&& value() && { return std::get<0>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const {
    assert(!ok());
    return std::get<1>(storage_);
  }

 private:
  std::variant<T, Error> storage_;
};

// For functions that return nothing on success.
struct Done {};

}  // namespace plaidml_cli
