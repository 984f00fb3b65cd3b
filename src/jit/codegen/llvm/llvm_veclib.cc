#include "jit/codegen/llvm/llvm_veclib.h"

#include <dlfcn.h>

namespace plaidml::jit::llvmgen {
namespace {

bool load_libmvec() {
#if defined(__x86_64__) && defined(__linux__)
  static const bool loaded = [] {
    void* handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
    // erf and tanh came with glibc 2.35; without them the library is too old to rely on.
    return handle != nullptr && dlsym(handle, "_ZGVdN8v_erff") != nullptr &&
           dlsym(handle, "_ZGVdN8v_tanhf") != nullptr;
  }();
  return loaded;
#else
  return false;
#endif
}

}  // namespace

std::string vector_library(bool avx2) { return avx2 && load_libmvec() ? "libmvec" : ""; }

llvm::TargetLibraryInfoImpl library_info(const llvm::Triple& triple, const std::string& library) {
  llvm::TargetLibraryInfoImpl tlii(triple);
  if (library != "libmvec") return tlii;
  tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
  // LLVM's table stops at exp, log, sin, cos, tan and pow; glibc also has these.
  using llvm::ElementCount;
  static const llvm::VecDesc extra[] = {
      {"erff", "_ZGVbN4v_erff", ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
      {"erff", "_ZGVdN8v_erff", ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
      {"tanhf", "_ZGVbN4v_tanhf", ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
      {"tanhf", "_ZGVdN8v_tanhf", ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
      {"erf", "_ZGVbN2v_erf", ElementCount::getFixed(2), false, "_ZGV_LLVM_N2v"},
      {"erf", "_ZGVdN4v_erf", ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
      {"tanh", "_ZGVbN2v_tanh", ElementCount::getFixed(2), false, "_ZGV_LLVM_N2v"},
      {"tanh", "_ZGVdN4v_tanh", ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
  };
  tlii.addVectorizableFunctions(extra);
  return tlii;
}

}  // namespace plaidml::jit::llvmgen
