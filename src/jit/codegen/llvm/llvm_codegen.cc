// host_target() and emit_llvm_object(): the program's kernels split into parts
// (kernel_partition.h), one llvm::Module per part on its own thread, the new pass manager at O3
// with the target's cost model, then an ELF object per part emitted in memory.
#include "jit/codegen/llvm/llvm_codegen.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "core/base/alloc_faults.h"
#include "core/base/env.h"
#include "core/base/logging.h"
#include "jit/codegen/llvm/kernel_partition.h"
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
// to check what the vectorizer made of a kernel. One warning per program, its parts' modules in
// order.
bool dump_asked() {
  std::string value = "," + env_string("PLAIDML_DUMP", "") + ",";
  return value.find(",llvm,") != std::string::npos;
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return stream.str();
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

namespace {

// One part's object (kernel_partition.h): its kernels in one module, optimized and emitted.
struct PartObject {
  Status status = Status::ok();
  llvm::SmallVector<char, 0> bytes;
  std::string dump;  // the optimized module's IR when PLAIDML_DUMP asks for it
  double optimize_ms = 0, codegen_ms = 0;
};

Status emit_part(const LoweredProgram& program, const std::vector<size_t>& kernels,
                 const TargetDesc& target, PartObject& out) {
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
  for (size_t k : kernels) {
    PLAIDML_TRY(llvmgen::emit_kernel(env, program.kernels[k], dtypes, target.cpu, target.features));
  }
  std::string errors;
  llvm::raw_string_ostream err_stream(errors);
  if (llvm::verifyModule(module, &err_stream)) {
    return make_error(StatusCode::kInternal, "generated LLVM IR is invalid: {}", errors);
  }
  auto start = std::chrono::steady_clock::now();
  bool explicit_vectors = std::all_of(kernels.begin(), kernels.end(), [&](size_t k) {
    return loop::has_vectors(program.kernels[k]);
  });
  llvm::TargetLibraryInfoImpl library =
      llvmgen::library_info(llvm::Triple(target.triple), target.vector_library);
  optimize(module, *tm, explicit_vectors, library);
  out.optimize_ms = ms_since(start);
  if (dump_asked()) out.dump = module_text(module);
  llvm::raw_svector_ostream stream(out.bytes);
  llvm::legacy::PassManager codegen;
  // Vector intrinsics (llvm.exp.v8f32 of a register-blocked epilogue) become libmvec calls here.
  codegen.add(new llvm::TargetLibraryInfoWrapperPass(library));
  if (tm->addPassesToEmitFile(codegen, stream, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return make_error(StatusCode::kUnsupported, "LLVM cannot emit an object file for '{}'",
                      target.triple);
  }
  start = std::chrono::steady_clock::now();
  codegen.run(module);
  out.codegen_ms = ms_since(start);
  return Status::ok();
}

// The parts on `threads` threads (the caller's among them), each taking the next part left. A
// thread that cannot be started leaves the parts to the others: the same result, later.
void emit_parts(const LoweredProgram& program, const std::vector<std::vector<size_t>>& parts,
                const TargetDesc& target, int threads, std::vector<PartObject>& out) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    AllocFaultPause pause;  // on this thread too (core/base/alloc_faults.h)
    for (size_t p = next++; p < parts.size(); p = next++) {
      // An exception must not leave a helper thread (that would terminate the process): running
      // out of memory in our own code here is the part's status, as on the caller's thread.
      try {
        out[p].status = emit_part(program, parts[p], target, out[p]);
      } catch (const std::bad_alloc&) {
        out[p].status = Status(StatusCode::kOutOfMemory, "out of memory generating CPU code");
      }
    }
  };
  std::vector<std::thread> helpers;
  size_t wanted = std::min(parts.size(), static_cast<size_t>(std::max(1, threads)));
  for (size_t t = 1; t < wanted; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : helpers) t.join();
}

// The parts' objects as one artifact: the object itself when there is one, else an ar archive
// of them (artifact.h); no bytes for a program without kernels (nothing loads them).
Expected<std::vector<uint8_t>> join_objects(std::vector<PartObject>& parts) {
  if (parts.empty()) return std::vector<uint8_t>();
  if (parts.size() == 1) return std::vector<uint8_t>(parts[0].bytes.begin(), parts[0].bytes.end());
  std::vector<llvm::NewArchiveMember> members;
  std::vector<std::string> names;
  names.reserve(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    names.push_back(fmt::format("part{}.o", p));
    llvm::StringRef bytes(parts[p].bytes.data(), parts[p].bytes.size());
    members.emplace_back(llvm::MemoryBufferRef(bytes, names.back()));
  }
  auto archive = llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NoSymtab,
                                            llvm::object::Archive::K_GNU, /*Deterministic=*/true,
                                            /*Thin=*/false);
  if (!archive) {
    return make_error(StatusCode::kInternal, "cannot archive the kernel objects: {}",
                      llvm::toString(archive.takeError()));
  }
  const llvm::MemoryBuffer& buffer = **archive;
  return std::vector<uint8_t>(buffer.getBufferStart(), buffer.getBufferEnd());
}

}  // namespace

Expected<Artifact> emit_llvm_object(const LoweredProgram& program, const TargetDesc& target,
                                    int threads, size_t min_part_weight) {
  AllocFaultPause pause;  // the threads' allocations, too (the test allocator's, not LLVM's)
  std::vector<std::vector<size_t>> parts =
      llvmgen::partition_kernels(program.kernels, threads, min_part_weight);
  std::vector<PartObject> objects(parts.size());
  auto start = std::chrono::steady_clock::now();
  emit_parts(program, parts, target, threads, objects);
  double optimize_ms = 0, codegen_ms = 0, slowest_ms = 0;
  std::string dump;
  for (const PartObject& o : objects) {
    dump += o.dump;
    slowest_ms = std::max(slowest_ms, o.optimize_ms + o.codegen_ms);
    PLAIDML_TRY(o.status);
    optimize_ms += o.optimize_ms;
    codegen_ms += o.codegen_ms;
  }
  if (logger().enabled(LogLevel::kDebug)) {
    size_t weight = 0;  // what kernel_partition.h estimates, beside what it took
    for (const auto& kernel : program.kernels) weight += llvmgen::compile_weight(kernel);
    logger().debug(
        "llvm: {} kernels (weight {}) in {} parts: optimize {:.1f} ms, machine code {:.1f} ms "
        "(the slowest part {:.1f} ms), {:.1f} ms elapsed",
        program.kernels.size(), weight, parts.size(), optimize_ms, codegen_ms, slowest_ms,
        ms_since(start));
  }
  if (dump_asked()) logger().warn("PLAIDML_DUMP llvm:\n{}", dump);
  Artifact artifact;
  PLAIDML_ASSIGN(artifact.bytes, join_objects(objects));
  for (const auto& kernel : program.kernels) {
    artifact.kernels.push_back(
        KernelEntry{kernel.name, loop::parallel_extent(kernel), kernel.work});
  }
  return artifact;
}

}  // namespace plaidml::jit
