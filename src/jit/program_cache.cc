#include "jit/program_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "core/base/env.h"
#include "core/base/folder.h"
#include "core/base/hash.h"
#include "core/base/logging.h"
#include "core/ir/constant.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "core/parse/program_file.h"
#include "jit/cache/cache_dir.h"
#include "jit/cache/folder_trust.h"

namespace plaidml::jit {
namespace {

namespace fs = std::filesystem;

// <cache folder>/programs, checked (jit/cache/folder_trust.h) and, for a store, created (mode
// 0700): its resolved path, or "" when the disk cache is off, the folder is absent (a load) or
// cannot be made, or it is refused (logged: a program file's constants are trusted bytes).
std::string programs_folder(bool create) {
  std::string root = resolve_cache_dir(std::nullopt);
  if (root.empty()) return "";
  std::string dir = root + "/programs";
  int err = 0;
  FolderTrust trust = prepare_folder(dir, create, &err);
  if (trust.verdict == FolderTrust::Verdict::kRefused) {
    warn_untrusted_folder("program cache", dir, trust);
  } else if (err != 0) {
    logger().debug("program cache: cannot create {}: {}", dir, std::strerror(err));
  }
  return trust.resolved;  // "" unless trusted
}

std::string entry_path(const std::string& folder, const std::string& key) {
  return folder + "/" + to_hex(sha256(key));
}

// Entries hold whole models' weights, so the folder is kept within a budget: the entries used
// least recently (a load touches its entry's modification time) go first, never `keep`.
void evict_beyond_budget(const fs::path& folder, const fs::path& keep) {
  uint64_t budget = static_cast<uint64_t>(
      std::max<int64_t>(0, env_int("PLAIDML_PROGRAM_CACHE_BYTES").value_or(kProgramCacheBytes)));
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  for (const std::string& name : folder_entries(folder.string())) {
    if (name.size() != 64) continue;
    fs::path path = folder / name;
    std::error_code stat_ec;
    if (!fs::is_regular_file(path, stat_ec)) continue;
    Entry entry{path, fs::last_write_time(path, stat_ec), fs::file_size(path, stat_ec)};
    if (stat_ec) continue;
    total += entry.bytes;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= budget) break;
    if (e.path == keep) continue;
    std::error_code rm_ec;
    if (fs::remove(e.path, rm_ec)) {
      total -= e.bytes;
      logger().debug("program cache: removed {} ({} bytes) to stay within {} bytes",
                     e.path.string(), e.bytes, budget);
    }
  }
}

// Whether the program prints to text that parses back to the same program (the same text
// again): only such a program comes back from its file as itself, with its fingerprint, plan
// entries and kernels. Programs whose dim expressions share subterms print each use in full and
// do not (BERT's exported shape arithmetic printed to 188 MB); they are not kept.
bool round_trips(const ir::Program& program) {
  constexpr size_t kMaxText = size_t{16} << 20;
  std::string text = ir::print_tile(program);
  if (text.size() > kMaxText) return false;
  // By digest and shape: equal bytes may be constants of several shapes.
  std::map<std::pair<uint64_t, std::string>, std::shared_ptr<const ir::ConstantData>> constants;
  for (const ir::Node& n : program.nodes) {
    if (n.kind != ir::NodeKind::kConstant || !n.constant) continue;
    constants[ir::constant_identity(*n.constant)] = n.constant;
  }
  auto resolve = [&](const Shape& shape, uint64_t digest)
      -> Expected<std::shared_ptr<const ir::ConstantData>> {
    auto it = constants.find({digest, shape.to_string()});
    if (it == constants.end()) return Status(StatusCode::kNotFound, "no such constant");
    return it->second;
  };
  auto parsed = parse::parse_tile(text, program.name, resolve, false);
  if (!parsed) throw_if_out_of_memory(parsed.status());
  return parsed && ir::print_tile(**parsed) == text;
}

}  // namespace

void store_cached_program(const std::string& key, const ir::Program& program) {
  if (resolve_cache_dir(std::nullopt).empty()) return;
  if (!round_trips(program)) {
    logger().debug("program cache: '{}' does not print to text that parses back to it; not kept",
                   program.name);
    return;
  }
  std::string folder = programs_folder(/*create=*/true);
  if (folder.empty()) return;
  std::string entry = entry_path(folder, key);
  Status written = parse::save_program(program, entry, {key, true});
  if (!written.is_ok()) {
    throw_if_out_of_memory(written);
    logger().debug("program cache: {}", written.message());
    return;
  }
  evict_beyond_budget(fs::path(entry).parent_path(), entry);
}

std::shared_ptr<const ir::Program> load_cached_program(const std::string& key) {
  std::string folder = programs_folder(/*create=*/false);
  if (folder.empty()) return nullptr;
  std::string entry = entry_path(folder, key);
  auto program = parse::load_program(entry, {key, true});
  if (program) {
    ::utimensat(AT_FDCWD, entry.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);  // used now
    return *program;
  }
  throw_if_out_of_memory(program.status());
  if (program.status().code() != StatusCode::kNotFound) {
    logger().warn("program cache: ignoring {}", program.status().message());
  }
  return nullptr;
}

}  // namespace plaidml::jit
