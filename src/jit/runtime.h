// Runtime: the C++ face of the JIT that src/capi wraps one call per entry point. One Runtime per
// plaidml_context: it owns the devices, the buffers' allocations, the plan cache (program
// fingerprint + input shapes + device -> compiled plan), the artifact cache behind it (generated
// code in memory and on disk) and their statistics.
// Thread safety: every method may be called from many threads at once; concurrent first
// compiles of the same (program, shapes, device) compile once (single flight).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "core/types/shape.h"
#include "jit/profiler.h"

namespace plaidml::jit {

struct RuntimeOptions {
  int num_threads = 0;    // 0: PLAIDML_NUM_THREADS, else the number of cores
  std::string device;     // default device id; "": PLAIDML_DEVICE, else "cpu:0"
  // The disk cache's folder; "" turns the disk cache off. Unset: PLAIDML_CACHE_DIR, else the
  // default folder (jit/cache/cache_dir.h).
  std::optional<std::string> cache_dir;
  // The most one execute or buffer may use on a device whose buffers are host memory, in
  // bytes; 0: PLAIDML_MEMORY_LIMIT, else the default (jit/memory_budget.h). Negative: refused.
  int64_t memory_limit = 0;
};

struct DeviceDescription {
  std::string id;           // "cpu:0", "opencl:0", ...
  std::string name;         // "Intel(R) Xeon(R) ... (LLVM ORC JIT, sapphirerapids)"
  std::string kind;         // the hardware: "cpu", "gpu", "accelerator" (PoCL's OpenCL device is
                            // a "cpu"); the id's prefix names the backend ("opencl:0")
  bool available = true;    // false: listed so that `plaidml devices` can say why not
  std::string unavailable_reason;
  int64_t memory_bytes = 0;
  int threads = 1;
};

struct CacheStats {
  int64_t compiles = 0;        // plans compiled (plan-cache misses)
  int64_t cache_hits = 0;      // plan-cache hits
  double compile_seconds = 0;  // total time spent compiling plans
  double last_compile_seconds = 0;
  // The artifact cache behind plan compiles (jit/cache/artifact_cache.h).
  int64_t kernels_compiled = 0;     // kernels the code generator produced
  int64_t artifact_memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t disk_misses = 0;
  int64_t disk_invalid = 0;
  int64_t disk_writes = 0;
  int64_t disk_write_failures = 0;
  // Kernels a compile took from the kernel library (jit/kernel_library.h): loaded by an earlier
  // compile of another program, or of this one at other sizes, and neither generated nor read.
  int64_t kernel_library_hits = 0;
  // Plan entries on disk (jit/plan_store.h): compiles that bound, lowered and scheduled nothing.
  int64_t plan_disk_hits = 0;
  int64_t plan_disk_misses = 0;
  int64_t plan_disk_writes = 0;
  // Resident constants (jit/constant_buffers.h).
  int64_t constant_uploads = 0;  // constants uploaded to a device (once each per device)
  int64_t constant_bytes = 0;    // bytes of constants resident now
};

// What one execute of a compiled program needs on its device, known before anything runs.
struct MemoryFigures {
  uint64_t constants_bytes = 0;  // weights, resident once per program and device
  uint64_t arena_bytes = 0;      // intermediates (MemoryPlan::arena_bytes)
  uint64_t unshared_bytes = 0;   // the intermediates without sharing, for comparison
  uint64_t inputs_bytes = 0;
  uint64_t outputs_bytes = 0;
  // Saturates: shapes of up to 2^63 - 1 bytes each must not add up to a small number.
  uint64_t peak_bytes() const {
    return add_saturated(add_saturated(constants_bytes, arena_bytes),
                         add_saturated(inputs_bytes, outputs_bytes));
  }
  static uint64_t add_saturated(uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
  }
};

// A tensor's storage on one device.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual const Shape& shape() const = 0;
  virtual int device() const = 0;  // index into Runtime::devices()
};

// A program compiled for one set of input shapes on one device.
class Plan {
 public:
  virtual ~Plan() = default;
  virtual const std::vector<Shape>& input_shapes() const = 0;   // parallel to program inputs
  virtual const std::vector<Shape>& output_shapes() const = 0;  // parallel to program outputs
  virtual int kernel_count() const = 0;
  virtual int device() const = 0;
  // What an execute needs on the device (jit/memory_plan.h), known before anything runs.
  virtual const MemoryFigures& memory() const = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  static Expected<std::unique_ptr<Runtime>> create(const RuntimeOptions& options);

  virtual const std::vector<DeviceDescription>& devices() const = 0;
  // One device's description. A built-in (the CPU) is described without loading the device
  // plugins, which devices() does (the OpenCL and Vulkan drivers: tens of MB resident).
  virtual Expected<DeviceDescription> device_description(int device) const = 0;
  // "" gives the default device. Unknown or unavailable id: kNotFound with the reason.
  virtual Expected<int> find_device(const std::string& id) const = 0;

  // A shape whose byte size overflows is kInvalidArgument; one larger than the device's memory
  // budget (memory_budget) is kOutOfMemory with both sizes, before the device is asked.
  virtual Expected<std::shared_ptr<Buffer>> allocate(int device, const Shape& shape) = 0;
  // bytes must equal shape().byte_size(), else kInvalidArgument naming both sizes.
  virtual Status write(Buffer& buffer, const void* data, size_t bytes) = 0;
  virtual Status read(const Buffer& buffer, void* data, size_t bytes) const = 0;

  // Compiles the program for these input shapes (parallel to program->inputs), or returns the
  // cached plan. Shape/dtype errors come from binding (ir/bind.h).
  virtual Expected<std::shared_ptr<const Plan>> prepare(
      const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
      int device) = 0;

  // Runs a program. inputs: one buffer per program input, in declaration order; outputs: one
  // entry per program output (or none: then it is filled), a given buffer must have the
  // output's inferred shape (else kTypeError naming both), a null one is allocated and returned
  // in place. Callers that hold names bind them first (jit/io_binding.h). Compiles on first use
  // at these shapes. On error no output buffer is written.
  virtual Status run(const std::shared_ptr<const ir::Program>& program, int device,
                     const std::vector<std::shared_ptr<Buffer>>& inputs,
                     std::vector<std::shared_ptr<Buffer>>* outputs) = 0;

  // The most one execute or buffer on the device may use, in bytes (0: no limit): for a device
  // whose buffers are host memory, the context's memory limit; else the device's memory.
  virtual Expected<uint64_t> memory_budget(int device) const = 0;
  // kOutOfMemory with the figures when an execute of the plan would exceed its device's budget
  // (run() checks this before allocating anything).
  virtual Status check_fits(const ir::Program& program, const Plan& plan) const = 0;

  virtual CacheStats stats() const = 0;
  // The disk cache's folder, "" when it is off.
  virtual const std::string& cache_dir() const = 0;
  // Opt-in timing of compiles, kernels and transfers (jit/profiler.h).
  virtual Profiler& profiler() = 0;
};

}  // namespace plaidml::jit
