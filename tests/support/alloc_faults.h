// A failing allocator for tests (tests/support/alloc_faults.cc): linked into a test program, it
// replaces the global operator new and delete of the whole process (libplaidml.so's calls
// resolve to it by ELF interposition), counts the allocations the armed thread makes and fails
// the chosen one: std::bad_alloc, or NULL from the nothrow forms. Only the armed thread is
// counted, and nothing while the library has paused injection (src/core/base/alloc_faults.h:
// inside LLVM), so a run of the same calls counts the same allocations and fails the same one.
// docs/reliability.md says how the C API tests use it.
#pragma once

#include <cstdint>

namespace plaidml::testing {

// Arms the calling thread: from now on its allocations are counted, and the fail_at-th (1 is
// the next one) fails; fail_at 0 counts without failing. Only that one fails: later ones succeed.
void alloc_faults_arm(uint64_t fail_at);

struct AllocFaultCount {
  uint64_t allocations = 0;  // counted while armed (not paused)
  bool injected = false;     // whether the fail_at-th came, and was failed
};

// Disarms the calling thread and says what happened while it was armed.
AllocFaultCount alloc_faults_disarm();

// With on, the failed allocation prints its call stack to stderr (to find where an absorbed
// failure went: PLAIDML_FAULTS_TRACE in the fault-injection test).
void alloc_faults_trace(bool on);

}  // namespace plaidml::testing
