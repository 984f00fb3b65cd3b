// The loaded kernels a plan launches, and what its plan entry records of them.
//
// A compile takes each kernel of its table from the device's kernel library
// (jit/kernel_library.h) when an earlier compile loaded one of the same form; only the rest are
// generated, together in one artifact (through the artifact cache), loaded, and added to the
// library. A plan entry names, per kernel, the artifact it is in and its place there: a warm
// start loads those artifacts from the artifact cache (and takes what the library has).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "devices/device.h"
#include "jit/cache/artifact_cache.h"
#include "jit/kernel_library.h"
#include "jit/kernel_table.h"
#include "jit/plan_record.h"

namespace plaidml::jit {

struct PlanKernels {
  std::vector<LoadedKernel> loaded;  // parallel to the table's (or the record's) kernels
  size_t from_library = 0;           // of them, found in the library
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

// The kernels of `table` on `device`: from `library` (null: none), the rest from
// make_artifact(), loaded and then added to the library. Errors: make_artifact's and the load's.
Expected<PlanKernels> table_kernels(const KernelTable& table, devices::Device& device,
                                    KernelLibrary* library, const MakeArtifact& make_artifact);

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
