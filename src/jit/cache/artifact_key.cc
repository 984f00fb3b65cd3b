#include "jit/cache/artifact_key.h"

#include <fmt/format.h>

#include "jit/cache/artifact_codec.h"
#include "jit/cache/compiler_revision.h"
#include "jit/loop/printer.h"

namespace plaidml::jit {
namespace {

const char* role_name(BufferSlot::Role role) {
  switch (role) {
    case BufferSlot::Role::kInput:
      return "input";
    case BufferSlot::Role::kOutput:
      return "output";
    case BufferSlot::Role::kTemp:
      return "temp";
    case BufferSlot::Role::kConstant:
      return "constant";
  }
  return "?";
}

std::string key_header(const ArtifactTarget& target) {
  return fmt::format("plaidml artifact\nrevision {}\nencoding {}\nllvm {}\nformat {}\ntarget {}\n",
                     kCompilerRevision, kArtifactCodecVersion, target.llvm_version, target.format,
                     target.description);
}

}  // namespace

ArtifactKey key_of_text(std::string text) {
  ArtifactKey key;
  key.digest = sha256(text);
  key.text = std::move(text);
  return key;
}

ArtifactKey make_kernels_key(const std::vector<Sha256Digest>& forms, const ArtifactTarget& target) {
  std::string text = key_header(target);
  for (const Sha256Digest& form : forms) text += "kernel of form " + to_hex(form) + "\n";
  return key_of_text(std::move(text));
}

bool kernels_key_names(const std::string& key_text, size_t index, const Sha256Digest& form) {
  const std::string marker = "\nkernel of form ";
  size_t at = key_text.find(marker);
  for (size_t i = 0; i < index && at != std::string::npos; ++i) {
    at = key_text.find(marker, at + marker.size());
  }
  if (at == std::string::npos) return false;
  return key_text.compare(at + marker.size(), 65, to_hex(form) + "\n") == 0;
}

ArtifactKey make_artifact_key(const LoweredProgram& program, const ArtifactTarget& target) {
  std::string text = key_header(target);
  for (size_t i = 0; i < program.slots.size(); ++i) {
    const BufferSlot& s = program.slots[i];
    text += fmt::format("slot {} {} {} {}", i, role_name(s.role), s.index, s.shape.to_string());
    if (s.packing.packed()) {
      text += fmt::format(" packed {}x{} in panels of {} from {}", s.packing.rows, s.packing.cols,
                          s.packing.width, s.packing.source.to_string());
    }
    text += "\n";
  }
  for (const loop::Kernel& k : program.kernels) {
    // work is launch metadata computed beside the kernel, not printed with it.
    text += fmt::format("work {}\n", k.work);
    text += loop::to_string(k);
  }
  return key_of_text(std::move(text));
}

}  // namespace plaidml::jit
