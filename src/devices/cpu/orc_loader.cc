// OrcLoader on LLJIT: each load gets its own JITDylib (linked against a process-symbols dylib so
// kernels resolve libm and libc), and destroying the LoadedObject removes that dylib, which frees
// its code. LLJIT is thread-safe; the mutex only serialises dylib creation and removal with
// their lookups so names and link orders never race. LLVM is built without exceptions, so every
// call into it runs under an AllocFaultPause (core/base/alloc_faults.h). An artifact is one ELF
// object or an ar archive of them (jit/codegen/artifact.h): every member goes into the dylib.
#include "devices/cpu/orc_loader.h"

#include <atomic>
#include <mutex>

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/Archive.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include "core/base/alloc_faults.h"

namespace plaidml::devices::cpu {
namespace {

std::string to_message(llvm::Error error) { return llvm::toString(std::move(error)); }

// The objects of an artifact: itself, or the members of the ar archive it is.
Expected<std::vector<llvm::StringRef>> objects_of(llvm::StringRef bytes) {
  if (!bytes.starts_with(llvm::object::ArchiveMagic)) return std::vector<llvm::StringRef>{bytes};
  auto archive = llvm::object::Archive::create(llvm::MemoryBufferRef(bytes, "kernels"));
  if (!archive) {
    return make_error(StatusCode::kDeviceError, "cannot read the kernel archive: {}",
                      to_message(archive.takeError()));
  }
  std::vector<llvm::StringRef> objects;
  llvm::Error error = llvm::Error::success();
  for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
    // A member of an archive that is not thin was checked as it was reached: its bytes are at
    // hand, and an error here is unlikely enough to share the archive's message.
    auto data = child.getBuffer();
    if (!data) {
      llvm::consumeError(std::move(error));
      return make_error(StatusCode::kDeviceError, "cannot read the kernel archive: {}",
                        to_message(data.takeError()));
    }
    objects.push_back(*data);
  }
  if (error) {
    return make_error(StatusCode::kDeviceError, "cannot read the kernel archive: {}",
                      to_message(std::move(error)));
  }
  if (objects.empty()) return make_error(StatusCode::kDeviceError, "the kernel archive is empty");
  return objects;
}

class OrcLoadedObject;

class LLJITLoader final : public OrcLoader {
 public:
  explicit LLJITLoader(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}
  ~LLJITLoader() override {
    AllocFaultPause pause;
    jit_.reset();
  }

  Expected<std::unique_ptr<LoadedObject>> load(const std::vector<uint8_t>& object,
                                               const std::vector<std::string>& symbols) override;
  void unload(llvm::orc::JITDylib* dylib);

 private:
  std::mutex mutex_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<int64_t> counter_{0};
};

class OrcLoadedObject final : public LoadedObject {
 public:
  // The loader must outlive its objects (it owns the JIT the code lives in).
  OrcLoadedObject(LLJITLoader* loader, llvm::orc::JITDylib* dylib, std::vector<KernelFn> kernels)
      : loader_(loader), dylib_(dylib), kernels_(std::move(kernels)) {}
  ~OrcLoadedObject() override { loader_->unload(dylib_); }
  const std::vector<KernelFn>& kernels() const override { return kernels_; }

 private:
  LLJITLoader* loader_;
  llvm::orc::JITDylib* dylib_;
  std::vector<KernelFn> kernels_;
};

Expected<std::unique_ptr<LoadedObject>> LLJITLoader::load(const std::vector<uint8_t>& object,
                                                          const std::vector<std::string>& symbols) {
  AllocFaultPause pause;
  std::lock_guard<std::mutex> lock(mutex_);
  std::string name = fmt::format("plaidml_object_{}", counter_++);
  auto dylib = jit_->createJITDylib(name);
  if (!dylib) {
    return make_error(StatusCode::kDeviceError, "cannot create a JIT dylib: {}",
                      to_message(dylib.takeError()));
  }
  llvm::orc::JITDylib& jd = *dylib;
  llvm::StringRef bytes(reinterpret_cast<const char*>(object.data()), object.size());
  auto objects = objects_of(bytes);
  if (!objects) {
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
    return objects.status();
  }
  for (llvm::StringRef member : *objects) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(member, name);
    if (auto error = jit_->addObjectFile(jd, std::move(buffer))) {
      std::string message = to_message(std::move(error));
      llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
      return make_error(StatusCode::kDeviceError, "cannot load kernel object: {}", message);
    }
  }
  std::vector<KernelFn> kernels;
  for (const auto& symbol : symbols) {
    auto address = jit_->lookup(jd, symbol);
    if (!address) {
      std::string message = to_message(address.takeError());
      llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
      return make_error(StatusCode::kDeviceError, "cannot resolve kernel '{}': {}", symbol,
                        message);
    }
    kernels.push_back(address->toPtr<KernelFn>());
  }
  return std::unique_ptr<LoadedObject>(new OrcLoadedObject(this, &jd, std::move(kernels)));
}

void LLJITLoader::unload(llvm::orc::JITDylib* dylib) {
  AllocFaultPause pause;
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::consumeError(jit_->getExecutionSession().removeJITDylib(*dylib));
}

}  // namespace

Expected<std::unique_ptr<OrcLoader>> OrcLoader::create() {
  AllocFaultPause pause;
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    return make_error(StatusCode::kDeviceError, "cannot start the LLVM ORC JIT: {}",
                      to_message(jit.takeError()));
  }
  // libm, libc and the C++ runtime of this process: the kernels call tanhf, erff, memset, ...
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    return make_error(StatusCode::kDeviceError, "cannot expose process symbols to the JIT: {}",
                      to_message(process.takeError()));
  }
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  return std::unique_ptr<OrcLoader>(new LLJITLoader(std::move(*jit)));
}

}  // namespace plaidml::devices::cpu
