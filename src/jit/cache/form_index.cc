#include "jit/cache/form_index.h"

#include <vector>

#include "core/base/byte_io.h"

namespace plaidml::jit {
namespace {

std::string forms_dir(const std::string& disk_dir) {
  return disk_dir.empty() ? "" : disk_dir + "/forms";
}

// The artifact key of the kernel alone names form and target (and revision, LLVM version...).
ArtifactKey form_key(const Sha256Digest& form, const ArtifactTarget& target) {
  return key_of_text("plaidml kernel form\n" + make_kernels_key({form}, target).text);
}

}  // namespace

FormIndex::FormIndex(const std::string& disk_dir)
    : disk_(forms_dir(disk_dir), /*quiet_writes=*/true) {}

std::optional<FormPlace> FormIndex::find(const Sha256Digest& form,
                                         const ArtifactTarget& target) const {
  if (!disk_.enabled()) return std::nullopt;
  ArtifactKey key = form_key(form, target);
  DiskReadResult read = disk_.read(key.digest, key.text);
  if (read.lookup != DiskLookup::kHit) return std::nullopt;
  ByteReader r(read.payload);
  FormPlace place;
  int64_t index = 0;
  // The checksum matched; a payload that does not decode is a writer's bug: treated as absent.
  if (!r.i64(index) || !r.str(place.artifact_key_text) || r.remaining() != 0 || index < 0 ||
      index > (int64_t{1} << 24)) {
    return std::nullopt;
  }
  place.index = static_cast<int>(index);
  return place;
}

void FormIndex::write(const Sha256Digest& form, const ArtifactTarget& target,
                      const FormPlace& place) {
  if (!disk_.enabled()) return;
  ArtifactKey key = form_key(form, target);
  ByteWriter w;
  w.i64(place.index);
  w.str(place.artifact_key_text);
  disk_.write(key.digest, key.text, w.out());
}

}  // namespace plaidml::jit
