// The failing allocator of alloc_faults.h: every replaceable form of the global operator new
// and delete (plain, array, nothrow, aligned, sized), all on malloc/aligned_alloc and free, so
// that ASan sees matched pairs and LeakSanitizer every block. The test program exports
// plaidml_testing_alloc_faults_pause (CMake ENABLE_EXPORTS), the weak hook that libplaidml's
// AllocFaultPause calls around LLVM.
#include "support/alloc_faults.h"

#include <execinfo.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace plaidml::testing {
namespace {

// Per thread, trivially initialised (no TLS guard, no allocation): operator new reads them.
struct FaultState {
  bool armed;
  bool injected;
  bool trace;
  int paused;
  uint64_t fail_at;
  uint64_t count;
};
thread_local FaultState t_faults = {};

// Whether this allocation is the one to fail. Counts it when armed and not paused.
bool fault_now() {
  FaultState& s = t_faults;
  if (!s.armed || s.paused > 0) return false;
  ++s.count;
  if (s.count != s.fail_at) return false;
  s.injected = true;
  if (s.trace) {
    // backtrace() allocates with malloc, never operator new: no recursion into here.
    void* frames[64];
    int n = backtrace(frames, 64);
    static const char kHeader[] = "alloc_faults: failing this allocation:\n";
    ssize_t ignored = write(2, kHeader, sizeof(kHeader) - 1);
    (void)ignored;
    backtrace_symbols_fd(frames, n, 2);
  }
  return true;
}

void* allocate(std::size_t size, std::size_t align) {
  if (fault_now()) return nullptr;
  if (size == 0) size = 1;
  if (align <= alignof(std::max_align_t)) return std::malloc(size);
  // aligned_alloc wants a size that is a multiple of the alignment.
  std::size_t rounded = (size + align - 1) / align * align;
  return std::aligned_alloc(align, rounded);
}

void* allocate_or_throw(std::size_t size, std::size_t align) {
  void* p = allocate(size, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void alloc_faults_arm(uint64_t fail_at) {
  t_faults.fail_at = fail_at;
  t_faults.count = 0;
  t_faults.injected = false;
  t_faults.armed = true;
}

AllocFaultCount alloc_faults_disarm() {
  t_faults.armed = false;
  return AllocFaultCount{t_faults.count, t_faults.injected};
}

void alloc_faults_trace(bool on) { t_faults.trace = on; }

}  // namespace plaidml::testing

extern "C" __attribute__((visibility("default"))) void plaidml_testing_alloc_faults_pause(
    int delta) {
  plaidml::testing::t_faults.paused += delta;
}

namespace {
using plaidml::testing::allocate;
using plaidml::testing::allocate_or_throw;
constexpr std::size_t kPlain = alignof(std::max_align_t);
std::size_t to_size(std::align_val_t a) { return static_cast<std::size_t>(a); }
}  // namespace

void* operator new(std::size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new[](std::size_t n) { return allocate_or_throw(n, kPlain); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kPlain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kPlain); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, to_size(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, to_size(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, to_size(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, to_size(a));
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
