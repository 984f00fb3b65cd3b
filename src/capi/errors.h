// The error firewall of the C ABI. Every entry point runs its body through guard(), which turns
// a Status into a plaidml_status plus the thread-local message, and every escaping C++ exception
// into a status: nothing thrown inside plaidml ever reaches a C caller.
#pragma once

#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "core/base/status.h"
#include "plaidml/plaidml.h"

namespace plaidml::capi {

// Records status as the calling thread's last error and returns its code. Never throws.
plaidml_status set_error(const Status& status) noexcept;

// INVALID_ARGUMENT "<fn>: argument '<arg>' is NULL".
Status null_argument(const char* fn, const char* arg);

// A JIT error as this entry point's: "<fn>: " before the message, as before every message the
// C ABI makes itself (jit/io_binding.h leaves its messages without a caller's name).
template <typename T>
Expected<T> with_fn(const char* fn, Expected<T> result) {
  if (result.has_value()) return result;
  return result.status().with_context(std::string(fn) + ": ");
}
inline Status with_fn(const char* fn, Status status) {
  return status.is_ok() ? status : status.with_context(std::string(fn) + ": ");
}

// A copy of text the caller frees with plaidml_string_destroy (malloc: it calls free()).
char* caller_string(const std::string& text);

// Versioned out-structs (plaidml_stats, plaidml_memory): the caller's struct_size must hold at
// least the size field ("out_stats", "plaidml_stats" name them in the message)...
Status check_struct_size(const char* fn, size_t size, const char* arg, const char* type);

// The most dimensions a tensor may have (numpy's limit too). A larger rank is the caller's
// error, not a reason to read that many dims or reserve memory for them.
inline constexpr size_t kMaxRank = 64;
// INVALID_ARGUMENT "<fn>: rank N is more than the 64 dimensions a tensor may have".
Status check_rank(const char* fn, size_t rank);
// ...and an older caller's smaller struct gets only the fields it knows.
template <typename T>
void copy_versioned(T* out, T full, size_t size) {
  full.struct_size = size < sizeof(full) ? size : sizeof(full);
  std::memcpy(out, &full, full.struct_size);
}

// The body returns a Status; an exception becomes OUT_OF_MEMORY or INTERNAL.
template <typename Body>
plaidml_status guard(const char* fn, Body&& body) noexcept {
  try {
    Status status = body(fn);
    if (status.is_ok()) return PLAIDML_STATUS_OK;
    return set_error(status);
  } catch (const std::bad_alloc&) {
    return set_error(Status(StatusCode::kOutOfMemory, std::string(fn) + ": out of memory"));
  } catch (const std::exception& e) {
    return set_error(Status(StatusCode::kInternal,
                            std::string(fn) + ": internal error (please report): " + e.what()));
  } catch (...) {
    return set_error(
        Status(StatusCode::kInternal, std::string(fn) + ": internal error (please report)"));
  }
}

// Runs a void body (destroy functions): an exception is logged, never propagated.
template <typename Body>
void guard_void(const char* fn, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    set_error(Status(StatusCode::kInternal, std::string(fn) + ": internal error (please report)"));
  }
}

}  // namespace plaidml::capi

// Inside a guard body whose parameter is `fn`: fails with INVALID_ARGUMENT when ptr is NULL.
#define PLAIDML_CAPI_REQUIRE(ptr) \
  if ((ptr) == nullptr) return ::plaidml::capi::null_argument(fn, #ptr)
