// What one run of a fault-injection scenario saw, and the few helpers the scenarios are written
// with. A scenario is a function of plain C API calls that runs while the failing allocator
// (tests/support/alloc_faults.h) is armed, so nothing here allocates: messages are copied into
// fixed arrays, handles are held by Owned (no allocation), and results are compared with
// hand-computed values in plain arrays. The first unexpected status ends the scenario; Owned
// closes whatever it opened.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "plaidml/plaidml.h"

namespace plaidml::faults {

class FaultRun {
 public:
  // True when status is OK; otherwise records the first failure (status, call, message).
  bool ok(plaidml_status status, const char* call) {
    if (status == PLAIDML_STATUS_OK) return true;
    record(status, call);
    return false;
  }

  // The call must fail with `want` and a message containing `substring` (a misuse the scenario
  // makes on purpose). Another failure is recorded as the scenario's failure; OK is recorded as
  // a wrong result.
  bool expect(plaidml_status status, plaidml_status want, const char* substring, const char* call) {
    if (status == want && std::strstr(plaidml_last_error_message(), substring) != nullptr) {
      return true;
    }
    if (status == PLAIDML_STATUS_OK) {
      wrong(call, "returned OK where an error was expected");
    } else {
      record(status, call);
    }
    return false;
  }

  // A result that differs from the hand-computed one (a failure swallowed into a wrong answer).
  void wrong(const char* call, const char* what) {
    if (wrong_) return;
    wrong_ = true;
    std::snprintf(wrong_what_, sizeof wrong_what_, "%s: %s", call, what);
  }

  // n floats equal to want within tol; else a wrong result naming the first element that
  // differs.
  bool close(const char* call, const float* got, const float* want, size_t n, float tol) {
    for (size_t i = 0; i < n; ++i) {
      if (!(std::fabs(got[i] - want[i]) <= tol)) {
        char what[96];
        std::snprintf(what, sizeof what, "element %zu is %g, want %g", i, double(got[i]),
                      double(want[i]));
        wrong(call, what);
        return false;
      }
    }
    return true;
  }

  bool failed() const { return status_ != PLAIDML_STATUS_OK; }
  plaidml_status status() const { return status_; }
  const char* call() const { return call_; }
  const char* message() const { return message_; }
  bool wrong_result() const { return wrong_; }
  const char* wrong_what() const { return wrong_what_; }

 private:
  void record(plaidml_status status, const char* call) {
    if (failed()) return;
    status_ = status;
    std::snprintf(call_, sizeof call_, "%s", call);
    const char* message = plaidml_last_error_message();
    std::snprintf(message_, sizeof message_, "%s", message != nullptr ? message : "");
  }

  plaidml_status status_ = PLAIDML_STATUS_OK;
  char call_[160] = {};
  char message_[512] = {};
  bool wrong_ = false;
  char wrong_what_[256] = {};
};

// A handle closed by its destroy function when the scenario leaves, however it leaves.
template <typename T, void (*Destroy)(T*)>
class Owned {
 public:
  Owned() = default;
  ~Owned() { Destroy(p_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T** out() { return &p_; }
  T* get() const { return p_; }
  // Closes it now (before the scenario ends).
  void reset() {
    Destroy(p_);
    p_ = nullptr;
  }

 private:
  T* p_ = nullptr;
};

using Context = Owned<plaidml_context, plaidml_context_destroy>;
using Options = Owned<plaidml_context_options, plaidml_context_options_destroy>;
using Program = Owned<plaidml_program, plaidml_program_destroy>;
using Buffer = Owned<plaidml_buffer, plaidml_buffer_destroy>;
using Builder = Owned<plaidml_builder, plaidml_builder_destroy>;
using Contraction = Owned<plaidml_contraction, plaidml_contraction_destroy>;
using Attrs = Owned<plaidml_attrs, plaidml_attrs_destroy>;
using Text = Owned<char, plaidml_string_destroy>;

}  // namespace plaidml::faults

// Inside a scenario (a void function with a FaultRun& run): stops it at the first failure.
#define FAULT_STEP(call) \
  if (!run.ok((call), #call)) return
#define FAULT_EXPECT(call, want, substring) \
  if (!run.expect((call), (want), (substring), #call)) return
