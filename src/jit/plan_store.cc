#include "jit/plan_store.h"

#include <fmt/format.h>

#include "core/base/logging.h"
#include "core/ir/printer.h"
#include "jit/cache/compiler_revision.h"

namespace plaidml::jit {
namespace {

std::string entries_dir(const std::string& disk_dir) {
  return disk_dir.empty() ? "" : disk_dir + "/plans";
}

}  // namespace

ArtifactKey make_plan_key(const ir::Program& program, const std::vector<Shape>& input_shapes,
                          const ArtifactTarget& target, const passes::CpuTarget& cpu) {
  std::string text = fmt::format(
      "plaidml plan\nrevision {}\nencoding {}\nllvm {}\nformat {}\ntarget {}\n"
      "schedule vector {} registers {} l1 {} l2 {} threads {}\n",
      kCompilerRevision, kPlanCodecVersion, target.llvm_version, target.format,
      target.description, cpu.vector_bits, cpu.vector_registers, cpu.l1_bytes, cpu.l2_bytes,
      cpu.threads);
  for (const Shape& s : input_shapes) text += "input " + s.to_string() + "\n";
  text += ir::print_tile(program);
  ArtifactKey key;
  key.digest = sha256(text);
  key.text = std::move(text);
  return key;
}

// Write failures are the kernel folder's too, which warns for both.
PlanStore::PlanStore(const std::string& disk_dir)
    : disk_(entries_dir(disk_dir), /*quiet_writes=*/true) {}

std::optional<PlanRecord> PlanStore::read(const ArtifactKey& key) {
  DiskReadResult read = disk_.read(key.digest, key.text);
  if (read.lookup != DiskLookup::kHit) {
    misses_++;
    return std::nullopt;
  }
  Expected<PlanRecord> record = decode_plan_record(read.payload);
  if (!record) {
    // The checksum matched, so this is a writer's bug rather than damage: say so loudly.
    logger().warn("kernel cache: ignoring the plan entry {}: {}", disk_.path_of(key.digest),
                  record.status().message());
    misses_++;
    return std::nullopt;
  }
  return std::move(*record);
}

void PlanStore::write(const ArtifactKey& key, const PlanRecord& record) {
  if (disk_.write(key.digest, key.text, encode_plan_record(record))) writes_++;
}

void PlanStore::count(bool used) { (used ? hits_ : misses_)++; }

PlanStoreStats PlanStore::stats() const {
  return PlanStoreStats{hits_.load(), misses_.load(), writes_.load()};
}

}  // namespace plaidml::jit
