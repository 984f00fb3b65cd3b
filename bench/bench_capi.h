// Small RAII and error helpers over the public C API (include/plaidml/plaidml.h). The bench is an
// application of the library: it sees nothing but the C ABI, so it keeps its own error type.
#pragma once

#include <plaidml/plaidml.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace plaidml_bench {

struct ContextDeleter {
  void operator()(plaidml_context* c) const { plaidml_context_destroy(c); }
};
struct ProgramDeleter {
  void operator()(plaidml_program* p) const { plaidml_program_destroy(p); }
};
struct BufferDeleter {
  void operator()(plaidml_buffer* b) const { plaidml_buffer_destroy(b); }
};
using ContextPtr = std::unique_ptr<plaidml_context, ContextDeleter>;
using ProgramPtr = std::unique_ptr<plaidml_program, ProgramDeleter>;
using BufferPtr = std::unique_ptr<plaidml_buffer, BufferDeleter>;

struct Failure {
  std::string message;
};

// A value or the message of what failed.
template <typename T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : storage_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Outcome(Failure failure) : storage_(std::move(failure)) {}  // NOLINT(google-explicit-constructor)
  explicit operator bool() const { return storage_.index() == 0; }
  T& operator*() { return std::get<0>(storage_); }
  T* operator->() { return &std::get<0>(storage_); }
  const std::string& message() const { return std::get<1>(storage_).message; }

 private:
  std::variant<T, Failure> storage_;
};

// "what: PLAIDML_STATUS_UNSUPPORTED: <the library's message>" for the call that just failed.
Failure api_failure(const std::string& what, plaidml_status status);

// A context on device_id ("opencl:0") whose CPU device runs num_threads worker threads (0: the
// library's default); on failure the message lists the known devices.
Outcome<ContextPtr> open_context(const std::string& device_id, int num_threads = 0);

// The context's statistics (plaidml_context_stats with this header's struct size; zeros if the
// call fails).
plaidml_stats context_stats(const plaidml_context* context);

// The human-readable name of the context's selected device ("" if unknown).
std::string selected_device_name(const plaidml_context* context);

// "cpu:0 (available), opencl:0 (unavailable: no OpenCL platform)" for error messages.
std::string describe_devices(const plaidml_context* context);

}  // namespace plaidml_bench
