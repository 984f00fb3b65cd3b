// What the CPU loop passes know of the machine: vector width and register file (from the host's
// features, jit/codegen/llvm host_target()), cache sizes and threads. Zero vector_bits means
// "not a CPU target": the CPU scheduling passes leave kernels as they are.
#pragma once

#include <cstdint>

namespace plaidml::jit::passes {

struct CpuTarget {
  int vector_bits = 0;        // 512 with AVX-512, 256 with AVX2, 128 with SSE/NEON, 0: none
  int vector_registers = 16;  // 32 with AVX-512
  int64_t l1_bytes = 32 * 1024;
  int64_t l2_bytes = 1024 * 1024;
  int threads = 1;
};

// The target of a host whose widest vectors have `vector_bits` (TargetDesc::vector_bits):
// AVX-512 has 32 vector registers, AVX2/SSE and NEON 16 (NEON has 32; 16 is the safe budget).
inline CpuTarget cpu_target_for(int vector_bits, int threads) {
  CpuTarget t;
  t.vector_bits = vector_bits;
  t.vector_registers = vector_bits >= 512 ? 32 : 16;
  t.threads = threads < 1 ? 1 : threads;
  return t;
}

}  // namespace plaidml::jit::passes
