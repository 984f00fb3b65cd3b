// What codegen hands to a device: target code plus launch metadata. Devices see only this
// (through the plugin ABI), never the graph or loop IR.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace plaidml::jit {

// The CPU target a kernel is compiled for. key() goes into cache keys.
struct TargetDesc {
  std::string triple;    // "x86_64-pc-linux-gnu"
  std::string cpu;       // "sapphirerapids"
  std::string features;  // "+avx512f,+fma,..." (LLVM feature string)
  int vector_bits = 128; // widest vector register the features allow (512 with AVX-512)
  std::string vector_library;  // "libmvec" when kernels may call it (llvm_veclib.h), else ""
  std::string key() const {
    std::string library = vector_library.empty() ? "" : "|" + vector_library;
    return triple + "|" + cpu + "|" + features + library;
  }
};

// CPU kernel ABI (format "elf-object"): every kernel is
//   extern "C" void <symbol>(void* const* args, int64_t begin, int64_t end);
// The bytes are one ELF relocatable object, or a System V (GNU) ar archive of such objects when
// code generation split the kernels over threads (codegen/llvm/kernel_partition.h); a loader
// links every member, and each kernel's symbol is defined in exactly one.
// args: one pointer per parameter of the kernel (loop::parameters), in that order. GPU kernels
// take the same buffers in the same order (OpenCL arguments, Vulkan bindings 0..n-1 of set 0).
// The kernel runs iterations [begin, end) of its parallel outermost loop; iterations write
// disjoint output elements, so the device may split [0, parallel_extent) across threads.
struct KernelEntry {
  std::string symbol;
  int64_t parallel_extent = 1;  // 1: call once with (0, 1)
  double work = 0;              // estimated scalar operations, to decide whether to split
  // GPU formats: workgroups per dimension and threads per workgroup (the CPU ignores them).
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> workgroup = {1, 1, 1};
};

struct Artifact {
  std::string format = "elf-object";
  std::vector<uint8_t> bytes;
  std::vector<KernelEntry> kernels;  // run in this order
};

}  // namespace plaidml::jit
