// host_target() and emit_llvm_object(): one llvm::Module per lowered program, the new pass
// manager at O3 with the target's cost model, then an ELF object emitted in memory.
#include "jit/codegen/llvm/llvm_codegen.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "core/base/alloc_faults.h"
#include "core/base/env.h"
#include "core/base/logging.h"
#include "jit/codegen/llvm/llvm_emitter.h"
#include "jit/codegen/llvm/llvm_veclib.h"

namespace plaidml::jit {
namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

bool has_feature(const std::string& features, const std::string& name) {
  std::string needle = "+" + name;
  size_t pos = 0;
  while ((pos = features.find(needle, pos)) != std::string::npos) {
    size_t end = pos + needle.size();
    if (end == features.size() || features[end] == ',') return true;
    pos = end;
  }
  return false;
}

Expected<std::unique_ptr<llvm::TargetMachine>> make_target_machine(const TargetDesc& target) {
  init_llvm();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!t) {
    return make_error(StatusCode::kUnsupported, "no LLVM target for '{}': {}", target.triple,
                      error);
  }
  llvm::TargetOptions options;
  // Machine code at Less (llc -O1), not Aggressive: the kernels arrive vectorized, blocked and
  // unrolled by the loop passes, so the heavier back end bought 0 to 5% on the CPU bench's
  // convolutions while taking twice as long: 122 s against 69 s for the 427 kernels of the light
  // DenseNet-121 channels last.
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Less));
  if (!tm) return make_error(StatusCode::kInternal, "cannot create an LLVM target machine");
  return tm;
}

// explicit_vectors: every kernel was vectorized and unrolled by the loop passes
// (register-block), so LLVM's vectorizers and unroller have nothing left to do but cost compile
// time; other kernels rely on them.
void optimize(llvm::Module& module, llvm::TargetMachine& tm, bool explicit_vectors,
              const llvm::TargetLibraryInfoImpl& library) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = !explicit_vectors;
  tuning.SLPVectorization = !explicit_vectors;
  tuning.LoopUnrolling = !explicit_vectors;
  llvm::PassBuilder pb(&tm, tuning);
  // Before the defaults, so that the vectorizer knows the vector math library's functions.
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(
      explicit_vectors ? llvm::OptimizationLevel::O2 : llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

// PLAIDML_DUMP=llvm (or a list naming it, e.g. "1,llvm") logs the optimized LLVM IR: the way
// to check what the vectorizer made of a kernel.
void dump_if_asked(const llvm::Module& module) {
  std::string value = "," + env_string("PLAIDML_DUMP", "") + ",";
  if (value.find(",llvm,") == std::string::npos) return;
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  logger().warn("PLAIDML_DUMP llvm:\n{}", stream.str());
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::vector<DType> slot_dtypes(const LoweredProgram& program) {
  std::vector<DType> out;
  for (const auto& s : program.slots) out.push_back(s.shape.dtype);
  return out;
}

}  // namespace

TargetDesc host_target() {
  AllocFaultPause pause;  // LLVM cannot survive a thrown bad_alloc (core/base/alloc_faults.h)
  init_llvm();
  TargetDesc desc;
  desc.triple = llvm::sys::getProcessTriple();
  desc.cpu = llvm::sys::getHostCPUName().str();
  std::vector<std::string> features;
  for (const auto& f : llvm::sys::getHostCPUFeatures()) {
    features.push_back((f.getValue() ? "+" : "-") + f.getKey().str());
  }
  std::sort(features.begin(), features.end());  // StringMap order is not stable: keys need it
  for (size_t i = 0; i < features.size(); ++i) desc.features += (i ? "," : "") + features[i];
  desc.vector_library = llvmgen::vector_library(has_feature(desc.features, "avx2"));
  if (has_feature(desc.features, "avx512f")) {
    desc.vector_bits = 512;
  } else if (has_feature(desc.features, "avx")) {
    desc.vector_bits = 256;
  }
  return desc;
}

const char* llvm_version() { return LLVM_VERSION_STRING; }

Expected<Artifact> emit_llvm_object(const LoweredProgram& program, const TargetDesc& target) {
  // LLVM is built without exceptions: a bad_alloc thrown inside it would unwind through frames
  // that cannot clean up. The test allocator fails nothing here (core/base/alloc_faults.h).
  AllocFaultPause pause;
  PLAIDML_ASSIGN(std::unique_ptr<llvm::TargetMachine> tm, make_target_machine(target));
  llvm::LLVMContext ctx;
  llvm::Module module("plaidml", ctx);
  module.setTargetTriple(target.triple);
  module.setDataLayout(tm->createDataLayout());
  llvm::IRBuilder<> builder(ctx);
  llvmgen::Env env{module, builder, has_feature(target.features, "f16c")};
  std::vector<DType> dtypes = slot_dtypes(program);
  Artifact artifact;
  for (const auto& kernel : program.kernels) {
    PLAIDML_TRY(llvmgen::emit_kernel(env, kernel, dtypes, target.cpu, target.features));
    artifact.kernels.push_back(KernelEntry{kernel.name, loop::parallel_extent(kernel), kernel.work});
  }
  std::string errors;
  llvm::raw_string_ostream err_stream(errors);
  if (llvm::verifyModule(module, &err_stream)) {
    return make_error(StatusCode::kInternal, "generated LLVM IR is invalid: {}", errors);
  }
  auto start = std::chrono::steady_clock::now();
  bool explicit_vectors = std::all_of(program.kernels.begin(), program.kernels.end(),
                                      [](const loop::Kernel& k) { return loop::has_vectors(k); });
  llvm::TargetLibraryInfoImpl library =
      llvmgen::library_info(llvm::Triple(target.triple), target.vector_library);
  optimize(module, *tm, explicit_vectors, library);
  double optimize_ms = ms_since(start);
  dump_if_asked(module);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::legacy::PassManager codegen;
  // Vector intrinsics (llvm.exp.v8f32 of a register-blocked epilogue) become libmvec calls here.
  codegen.add(new llvm::TargetLibraryInfoWrapperPass(library));
  if (tm->addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return make_error(StatusCode::kUnsupported, "LLVM cannot emit an object file for '{}'",
                      target.triple);
  }
  start = std::chrono::steady_clock::now();
  codegen.run(module);
  logger().debug("llvm: optimize {:.1f} ms, machine code {:.1f} ms", optimize_ms, ms_since(start));
  artifact.bytes.assign(buffer.begin(), buffer.end());
  return artifact;
}

}  // namespace plaidml::jit
