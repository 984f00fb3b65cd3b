// The loaded kernels a plan launches, and what its plan entry records of them.
//
// A compile takes each kernel of its table from the device's kernel library
// (jit/kernel_library.h) when an earlier compile loaded one of the same form; only the rest are
// generated, together in one artifact (through the artifact cache), loaded, and added to the
// library. A plan entry names, per kernel, the artifact it is in and its place there: a warm
// start loads those artifacts from the artifact cache (and takes what the library has).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "devices/device.h"
#include "jit/cache/artifact_cache.h"
#include "jit/cache/form_index.h"
#include "jit/kernel_library.h"
#include "jit/kernel_table.h"
#include "jit/plan_record.h"

namespace plaidml::jit {

struct PlanKernels {
  std::vector<LoadedKernel> loaded;  // parallel to the table's (or the record's) kernels
  size_t from_library = 0;           // of them, found in the library
  size_t from_disk = 0;              // found through the form index (jit/cache/form_index.h)
  // The artifact of those the library lacked, and where it came from; none when it had all.
  std::optional<ArtifactCache::Lookup> artifact;
};

// The artifact of `code` (a program's slots and the kernels the library lacked, whose forms are
// `forms`) and its key's text.
struct KeyedArtifact {
  ArtifactCache::Lookup lookup;
  std::string key_text;
};
using MakeArtifact = std::function<Expected<KeyedArtifact>(const LoweredProgram& code,
                                                           const std::vector<Sha256Digest>& forms)>;

// An artifact of the artifact cache, loaded on a device.
struct CachedArtifact {
  ArtifactCache::Lookup lookup;
  std::shared_ptr<const devices::Executable> executable;
};

// The artifact of `key_text` from `artifacts` (memory or disk, never generated), loaded on
// `device`; nullopt when the cache lacks it. Errors: the load's.
Expected<std::optional<CachedArtifact>> load_cached(ArtifactCache& artifacts,
                                                    devices::Device& device,
                                                    const std::string& key_text);

// Kernels that earlier processes generated, found through the form index and loaded from the
// artifact cache (each artifact once per compile).
class StoredKernels {
 public:
  StoredKernels(FormIndex& index, ArtifactCache& artifacts, ArtifactTarget target,
                devices::Device& device)
      : index_(index), artifacts_(artifacts), target_(std::move(target)), device_(device) {}
  // The kernel of `form`, or nullopt when no entry names an artifact the cache still has with
  // the kernel at its place. Errors: the load's.
  Expected<std::optional<LoadedKernel>> find(const Sha256Digest& form);
  // Writes the entry of a kernel just generated.
  void remember(const Sha256Digest& form, const LoadedKernel& kernel);

 private:
  FormIndex& index_;
  ArtifactCache& artifacts_;
  ArtifactTarget target_;
  devices::Device& device_;
  std::map<std::string, CachedArtifact> loaded_;  // by artifact key text
};

// The kernels of `table` on `device`: from `library`, else from `stored` (either null: none),
// the rest from make_artifact(), loaded, added to the library and remembered in `stored`.
// Errors: make_artifact's and the loads'.
Expected<PlanKernels> table_kernels(const KernelTable& table, devices::Device& device,
                                    KernelLibrary* library, StoredKernels* stored,
                                    const MakeArtifact& make_artifact);

// The kernels `record` names: from `library`, the rest from the artifacts the record names as
// `artifacts` holds them (nothing is generated). nullopt when one of those artifacts is gone or
// lacks the recorded kernel. Errors: the load's.
Expected<std::optional<PlanKernels>> recorded_kernels(const PlanRecord& record,
                                                      devices::Device& device,
                                                      KernelLibrary* library,
                                                      ArtifactCache& artifacts);

// Fills record.kernels and record.artifact_keys from the plan's kernels and their forms.
void record_kernels(const std::vector<LoadedKernel>& loaded, const std::vector<Sha256Digest>& forms,
                    PlanRecord& record);

}  // namespace plaidml::jit
