// glibc's vector math library (libmvec) for the CPU kernels: with it, LLVM's vectorizer calls
// expf, logf, sinf, cosf, powf, erff or tanhf once per vector (8 floats with AVX2) instead of
// calling libm once per lane, which made softmax and GELU the slowest kernels per element of
// BERT (0.5 GFLOP/s).
#pragma once

#include <string>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/TargetParser/Triple.h>

namespace plaidml::jit::llvmgen {

// "libmvec" when this process can call the library's AVX2 functions: an x86-64 Linux host with
// AVX2 (`avx2`: the target's features have it) and glibc 2.35 or later (erf and tanh). Loads it
// (RTLD_GLOBAL, once), so that the CPU device's linker resolves its symbols from the process.
// "" otherwise. Part of the target key: an object that calls libmvec is never loaded where it
// is missing.
std::string vector_library(bool avx2);

// The library facts LLVM's passes see: the host's libm, and libmvec's vector variants when
// `library` is "libmvec".
llvm::TargetLibraryInfoImpl library_info(const llvm::Triple& triple, const std::string& library);

}  // namespace plaidml::jit::llvmgen
