#include "jit/plan_kernels.h"

#include <fmt/format.h>

#include <map>
#include <string>

namespace plaidml::jit {
namespace {

Expected<std::shared_ptr<const devices::Executable>> load_artifact(devices::Device& device,
                                                                   const Artifact& artifact) {
  std::vector<std::string> symbols;
  for (const KernelEntry& k : artifact.kernels) symbols.push_back(k.symbol);
  PLAIDML_ASSIGN(std::unique_ptr<devices::Executable> loaded,
                 device.load(artifact.format, artifact.bytes, symbols));
  return std::shared_ptr<const devices::Executable>(std::move(loaded));
}

}  // namespace

Expected<std::optional<CachedArtifact>> load_cached(ArtifactCache& artifacts,
                                                    devices::Device& device,
                                                    const std::string& key_text) {
  std::optional<ArtifactCache::Lookup> found = artifacts.find(key_of_text(key_text));
  if (!found) return std::optional<CachedArtifact>();
  PLAIDML_ASSIGN(auto executable, load_artifact(device, *found->artifact));
  return std::optional<CachedArtifact>(CachedArtifact{std::move(*found), std::move(executable)});
}

Expected<std::optional<LoadedKernel>> StoredKernels::find(const Sha256Digest& form) {
  std::optional<FormPlace> place = index_.find(form, target_);
  if (!place ||
      !kernels_key_names(place->artifact_key_text, static_cast<size_t>(place->index), form)) {
    return std::optional<LoadedKernel>();
  }
  auto it = loaded_.find(place->artifact_key_text);
  if (it == loaded_.end()) {
    PLAIDML_ASSIGN(std::optional<CachedArtifact> found,
                   load_cached(artifacts_, device_, place->artifact_key_text));
    if (!found) return std::optional<LoadedKernel>();
    it = loaded_.emplace(place->artifact_key_text, std::move(*found)).first;
  }
  const Artifact& artifact = *it->second.lookup.artifact;
  if (static_cast<size_t>(place->index) >= artifact.kernels.size()) {
    return std::optional<LoadedKernel>();
  }
  auto at = static_cast<uint32_t>(place->index);
  return std::optional<LoadedKernel>(
      LoadedKernel{it->second.executable, at, artifact.kernels[at], place->artifact_key_text});
}

void StoredKernels::remember(const Sha256Digest& form, const LoadedKernel& kernel) {
  index_.write(form, target_, FormPlace{kernel.artifact_key_text, static_cast<int>(kernel.index)});
}

Expected<PlanKernels> table_kernels(const KernelTable& table, devices::Device& device,
                                    KernelLibrary* library, StoredKernels* stored,
                                    const MakeArtifact& make_artifact) {
  PlanKernels out;
  out.loaded.resize(table.code.kernels.size());
  LoweredProgram missing;  // the kernels the library lacks, on the program's slots
  missing.slots = table.code.slots;
  std::vector<size_t> missing_of;  // their places in the table
  std::vector<Sha256Digest> missing_forms;
  for (size_t k = 0; k < table.code.kernels.size(); ++k) {
    std::optional<LoadedKernel> found =
        library ? library->find(device.id(), table.forms[k]) : std::nullopt;
    if (found) {
      out.loaded[k] = std::move(*found);
      out.from_library++;
      continue;
    }
    if (stored) {
      PLAIDML_ASSIGN(std::optional<LoadedKernel> on_disk, stored->find(table.forms[k]));
      if (on_disk) {
        if (library) library->add(device.id(), table.forms[k], *on_disk);
        out.loaded[k] = std::move(*on_disk);
        out.from_disk++;
        continue;
      }
    }
    missing.kernels.push_back(table.code.kernels[k]);
    missing_of.push_back(k);
    missing_forms.push_back(table.forms[k]);
  }
  if (missing.kernels.empty()) return out;
  PLAIDML_ASSIGN(KeyedArtifact made, make_artifact(missing, missing_forms));
  const Artifact& artifact = *made.lookup.artifact;
  if (artifact.kernels.size() != missing_of.size()) {
    return make_error(StatusCode::kInternal, "{} kernels were generated for {}",
                      artifact.kernels.size(), missing_of.size());
  }
  PLAIDML_ASSIGN(auto executable, load_artifact(device, artifact));
  for (size_t i = 0; i < missing_of.size(); ++i) {
    LoadedKernel kernel{executable, static_cast<uint32_t>(i), artifact.kernels[i], made.key_text};
    if (library) library->add(device.id(), table.forms[missing_of[i]], kernel);
    if (stored) stored->remember(table.forms[missing_of[i]], kernel);
    out.loaded[missing_of[i]] = std::move(kernel);
  }
  out.artifact = std::move(made.lookup);
  return out;
}

Expected<std::optional<PlanKernels>> recorded_kernels(const PlanRecord& record,
                                                      devices::Device& device,
                                                      KernelLibrary* library,
                                                      ArtifactCache& artifacts) {
  PlanKernels out;
  out.loaded.resize(record.kernels.size());
  std::map<int, std::vector<size_t>> needed;  // artifact -> the kernels the library lacks
  for (size_t k = 0; k < record.kernels.size(); ++k) {
    const RecordedKernel& r = record.kernels[k];
    std::optional<LoadedKernel> found = library ? library->find(device.id(), r.form) : std::nullopt;
    if (found) {
      out.loaded[k] = std::move(*found);
      out.from_library++;
    } else {
      needed[r.artifact].push_back(k);
    }
  }
  for (const auto& [index, kernels] : needed) {
    const std::string& key_text = record.artifact_keys[static_cast<size_t>(index)];
    for (size_t k : kernels) {
      const RecordedKernel& r = record.kernels[k];
      if (!kernels_key_names(key_text, static_cast<size_t>(r.index), r.form)) {
        return std::optional<PlanKernels>();
      }
    }
    PLAIDML_ASSIGN(std::optional<CachedArtifact> found, load_cached(artifacts, device, key_text));
    if (!found) return std::optional<PlanKernels>();
    const Artifact& artifact = *found->lookup.artifact;
    for (size_t k : kernels) {
      if (static_cast<size_t>(record.kernels[k].index) >= artifact.kernels.size()) {
        return std::optional<PlanKernels>();
      }
    }
    for (size_t k : kernels) {
      auto at = static_cast<uint32_t>(record.kernels[k].index);
      LoadedKernel kernel{found->executable, at, artifact.kernels[at], key_text};
      if (library) library->add(device.id(), record.kernels[k].form, kernel);
      out.loaded[k] = std::move(kernel);
    }
    out.artifact = std::move(found->lookup);
  }
  return std::optional<PlanKernels>(std::move(out));
}

void record_kernels(const std::vector<LoadedKernel>& loaded, const std::vector<Sha256Digest>& forms,
                    PlanRecord& record) {
  std::map<std::string, int> artifact_of;  // key text -> index in record.artifact_keys
  record.kernels.clear();
  record.artifact_keys.clear();
  for (size_t k = 0; k < loaded.size(); ++k) {
    auto [it, added] = artifact_of.emplace(loaded[k].artifact_key_text,
                                           static_cast<int>(record.artifact_keys.size()));
    if (added) record.artifact_keys.push_back(loaded[k].artifact_key_text);
    record.kernels.push_back(
        RecordedKernel{it->second, static_cast<int>(loaded[k].index), forms[k]});
  }
}

}  // namespace plaidml::jit
