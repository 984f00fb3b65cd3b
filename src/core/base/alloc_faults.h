// The library's side of fault injection (docs/reliability.md, "Out of memory"): the C API tests
// replace the global operator new with one that fails each allocation in turn, and turn every
// failure into a status. Code that cannot survive a thrown std::bad_alloc (LLVM is built
// without exceptions: an allocation failure there unwinds through frames that cannot clean up,
// or aborts) runs under an AllocFaultPause, during which the test allocator fails nothing.
//
// The hook is a weak symbol that only the fault-injection test defines (and exports): in every
// other program it is NULL, so the guard costs one test of a constant address, and libplaidml
// exports nothing for it (a weak undefined symbol is no export).
#pragma once

extern "C" void plaidml_testing_alloc_faults_pause(int delta) __attribute__((weak));

namespace plaidml {

// While one lives on a thread, the test allocator injects no failure on that thread. Nests.
class AllocFaultPause {
 public:
  AllocFaultPause() {
    if (plaidml_testing_alloc_faults_pause != nullptr) plaidml_testing_alloc_faults_pause(1);
  }
  ~AllocFaultPause() {
    if (plaidml_testing_alloc_faults_pause != nullptr) plaidml_testing_alloc_faults_pause(-1);
  }
  AllocFaultPause(const AllocFaultPause&) = delete;
  AllocFaultPause& operator=(const AllocFaultPause&) = delete;
};

}  // namespace plaidml
